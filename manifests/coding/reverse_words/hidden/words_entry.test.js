import assert from 'node:assert/strict';
import { reverseWords } from '../src/index.js';

assert.equal(reverseWords('a b'), 'b a');
assert.equal(reverseWords('the quick brown fox'), 'fox brown quick the');

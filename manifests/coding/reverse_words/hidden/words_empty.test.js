import assert from 'node:assert/strict';
import { reverseWords } from '../src/words.js';

assert.equal(reverseWords(''), '');

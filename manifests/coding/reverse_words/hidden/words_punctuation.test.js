import assert from 'node:assert/strict';
import { reverseWords } from '../src/words.js';

// Punctuation belongs to its word.
assert.equal(reverseWords('hello, brave new world!'), 'world! new brave hello,');

import assert from 'node:assert/strict';
import { sum } from '../src/sum.js';

// The list is the caller's: summing it must leave it as it was.
const numbers = [3, 1, 2];
assert.equal(sum(numbers), 6);
assert.deepEqual(numbers, [3, 1, 2]);

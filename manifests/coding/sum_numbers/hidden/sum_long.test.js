import assert from 'node:assert/strict';
import { sum } from '../src/sum.js';

const numbers = Array.from({ length: 100 }, (_, i) => i + 1);
assert.equal(sum(numbers), 5050);

import assert from 'node:assert/strict';
import { average } from '../src/average.js';

assert.equal(average([1, 2, 3, 4]), 2.5);
assert.equal(average([10, 20, 30]), 20);

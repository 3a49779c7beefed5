import assert from 'node:assert/strict';
import { sum } from '../src/sum.js';

assert.equal(sum([42]), 42);
assert.equal(sum([-7]), -7);

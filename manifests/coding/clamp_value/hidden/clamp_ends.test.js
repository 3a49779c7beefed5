import assert from 'node:assert/strict';
import { clamp } from '../src/clamp.js';

assert.equal(clamp(0, 0, 10), 0);
assert.equal(clamp(10, 0, 10), 10);
assert.equal(clamp(7, 7, 7), 7);

import assert from 'node:assert/strict';
import { clamp } from '../src/clamp.js';

assert.equal(clamp(0.25, 0.5, 1.5), 0.5);
assert.equal(clamp(1.25, 0.5, 1.5), 1.25);

import assert from 'node:assert/strict';
import { clamp } from '../src/clamp.js';

assert.equal(clamp(-50, -20, -10), -20);
assert.equal(clamp(-15, -20, -10), -15);
assert.equal(clamp(0, -20, -10), -10);

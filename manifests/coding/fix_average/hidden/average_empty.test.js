import assert from 'node:assert/strict';
import { average } from '../src/average.js';

assert.throws(() => average([]), RangeError);

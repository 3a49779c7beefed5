import assert from 'node:assert/strict';
import test from 'node:test';
import { clamp } from '../src/clamp.js';

test('a value inside the range is kept', () => assert.equal(clamp(5, 0, 10), 5));
test('a value below the range becomes low', () => assert.equal(clamp(-3, 0, 10), 0));
test('a value above the range becomes high', () => assert.equal(clamp(12, 0, 10), 10));

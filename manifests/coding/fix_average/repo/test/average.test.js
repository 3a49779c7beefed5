import assert from 'node:assert/strict';
import test from 'node:test';
import { average } from '../src/average.js';

test('the mean of two numbers', () => assert.equal(average([2, 4]), 3));
test('an empty list throws', () => assert.throws(() => average([]), RangeError));

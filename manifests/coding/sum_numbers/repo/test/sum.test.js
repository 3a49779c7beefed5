import assert from 'node:assert/strict';
import test from 'node:test';
import { sum } from '../src/sum.js';

test('sums a short list', () => assert.equal(sum([1, 2, 3]), 6));
test('an empty list sums to 0', () => assert.equal(sum([]), 0));
test('negative numbers count too', () => assert.equal(sum([-4, 4, 10]), 10));

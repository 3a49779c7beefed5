import assert from 'node:assert/strict';
import test from 'node:test';
import { reverseWords } from '../src/index.js';

test('three words come back in reverse order', () => assert.equal(reverseWords('one two three'), 'three two one'));
test('one word stays as it is', () => assert.equal(reverseWords('solo'), 'solo'));

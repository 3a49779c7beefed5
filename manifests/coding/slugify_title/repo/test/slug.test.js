import assert from 'node:assert/strict';
import test from 'node:test';
import { slugify } from '../src/slug.js';

test('two words', () => assert.equal(slugify('Hello World'), 'hello-world'));
test('spaces and symbols around and between', () => assert.equal(slugify('  Tabs & Spaces  '), 'tabs-spaces'));

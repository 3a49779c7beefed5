import assert from 'node:assert/strict';
import { slugify } from '../src/slug.js';

assert.equal(slugify('already-a-slug'), 'already-a-slug');

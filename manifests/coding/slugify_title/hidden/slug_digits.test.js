import assert from 'node:assert/strict';
import { slugify } from '../src/slug.js';

assert.equal(slugify('C3PO & R2-D2'), 'c3po-r2-d2');

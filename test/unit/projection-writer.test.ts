import { expect } from 'chai';
import { canonicalJson } from '../../src/core/canonical.js';
import { canonicalJsonChunks, jsonDocument, jsonDocumentChunks, jsonLineChunks, jsonLines } from '../../src/projections/writer.js';

// Outputs are written piece by piece; the bytes must be exactly those of the one-string forms.
describe('streamed canonical JSON', () => {
  const samples: unknown[] = [
    {},
    [],
    'text',
    7,
    null,
    true,
    [1, 'a', null, false],
    { a: [], b: {}, c: [[], {}, [1, [2, { z: 1, a: [3, { q: 'line\nbreak' }] }]]] },
    { skipped: undefined, fn: () => 1, kept: null, list: [undefined, () => 1, 1] },
    { calls: [{ b: 1, a: { y: 2, x: [1, 2, { k: 'v' }] } }, { c: 'é\u2028"\\' }], report: { n: 1, deep: { deeper: { deepest: [1, { a: 1 }] } } } },
    { when: new Date(0), map: new Map([[1, 2]]) },
  ];

  it('canonicalJsonChunks joins to canonicalJson at every streaming depth', () => {
    for (const v of samples) {
      for (const depth of [0, 1, 2, 3, 6]) expect([...canonicalJsonChunks(v, 2, 0, depth)].join('')).to.equal(canonicalJson(v, 2));
    }
  });

  it('jsonDocumentChunks and jsonLineChunks join to jsonDocument and jsonLines', () => {
    for (const v of samples) expect([...jsonDocumentChunks(v)].join('')).to.equal(jsonDocument(v));
    const rows = samples.filter((v) => v !== undefined);
    expect([...jsonLineChunks(rows)].join('')).to.equal(jsonLines(rows));
  });
});

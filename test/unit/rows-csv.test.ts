import { expect } from 'chai';
import { parseCsv } from '../../src/core/csv.js';
import { rowsCsv } from '../../src/projections/rows-csv.js';

const table = (text: string) => parseCsv(text).map((r) => r.fields);

describe('rows as CSV', () => {
  it('flattens nested values to dotted columns, sorted, and writes each row in order', () => {
    const rows = [
      { job_id: 'b:1', passed: true, usage: { total: { input_tokens: 10, complete: true } }, note: 'a, "quoted"\nline' },
      { job_id: 'a:1', passed: false, usage: { total: { input_tokens: 3, complete: false } }, note: '' },
    ];
    expect(table(rowsCsv(rows))).to.deep.equal([
      ['job_id', 'note', 'passed', 'usage.total.complete', 'usage.total.input_tokens'],
      ['b:1', 'a, "quoted"\nline', 'true', 'true', '10'],
      ['a:1', '', 'false', 'false', '3'],
    ]);
  });

  it('puts a list in one cell as JSON, null as an empty cell, and gives every column any row has', () => {
    const rows = [
      { id: 'x', failure: null, tags: ['a', 'b'], extra: { k: 1 } },
      { id: 'y', failure: { kind: 'provider', message: 'refused' }, tags: [] },
    ];
    expect(table(rowsCsv(rows))).to.deep.equal([
      ['extra.k', 'failure.kind', 'failure.message', 'id', 'tags'],
      ['1', '', '', 'x', '["a","b"]'],
      ['', 'provider', 'refused', 'y', '[]'],
    ]);
    // A key null in every row keeps its column.
    expect(table(rowsCsv([{ id: 'x', expected: null }]))).to.deep.equal([
      ['expected', 'id'],
      ['', 'x'],
    ]);
  });

  it('is the same text whatever the key order of the rows', () => {
    const a = rowsCsv([{ b: 1, a: { d: 2, c: 3 } }]);
    const b = rowsCsv([{ a: { c: 3, d: 2 }, b: 1 }]);
    expect(a).to.equal(b);
    expect(a.endsWith('\r\n')).to.equal(true);
  });
});

// The run page's table as the server does it: query parsing, search over answers and check
// details, filters, sort with nulls last, pages, previous/next; and the score distribution.
import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { distributionOf, histogram } from '../../src/view/distribution.js';
import { HttpError } from '../../src/view/errors.js';
import { namedCore } from '../../src/projections/index.js';
import { totalsByAttribution } from '../../src/projections/usage/report.js';
import { tableRow } from '../../src/view/rows.js';
import { matching, neighbours, runIndex, tableQuery, tablePage } from '../../src/view/run-table.js';

const row = (id: string, arm: string, passed: boolean, extra: Record<string, unknown> = {}) => ({
  job_id: `${id}:${arm}:1`,
  case_id: id,
  arm,
  repetition: 1,
  status: 'succeeded',
  passed,
  seconds: extra.seconds ?? null,
  input: `question ${id}`,
  output: `answer ${id}`,
  expected: `answer ${id}`,
  reason: passed ? 'all 2 checks passed' : `exact: expected "answer ${id}"`,
  checks: { exact: passed, length: true },
  checks_passed: passed ? 2 : 1,
  checks_total: 2,
  ...extra,
});

// A passing job's own check details are in its events only: its row's reason says "all 2 checks passed".
const check = (jobId: string, detail: string) => ({ type: 'CheckEvaluated', jobId, data: { checkId: 'length', detail } }) as unknown as StoredEvent;

function index(rows: Record<string, unknown>[], events: StoredEvent[] = []) {
  const views = rows.map((r) => tableRow(r, namedCore(r, { job_id: String(r.job_id), usage: totalsByAttribution([]) })));
  return runIndex(rows, views, events);
}

describe('evalog view: the run table (server side)', () => {
  const rows = [
    row('c1', 'a', true, { seconds: 3 }),
    row('c2', 'a', false, { seconds: 1 }),
    row('c3', 'b', true),
    row('c4', 'b', false, { seconds: 2, output: 'Zebra crossing' }),
  ];
  const idx = index(rows, [check('c3:b:1', 'length 42 within 10..80'), check('c1:a:1', 'length 7 within 10..80')]);
  const q = (s: string) => tableQuery(new URLSearchParams(s));
  const ids = (s: string) => matching(idx, q(s)).map((r) => r.view.job_id);

  it('searches inputs, outputs, expected values, reasons and every check detail, all words, any case', () => {
    expect(ids('q=zebra')).to.deep.equal(['c4:b:1']);
    expect(ids('q=QUESTION c2')).to.deep.equal(['c2:a:1']);
    expect(ids('q=length 42')).to.deep.equal(['c3:b:1']);
    expect(ids('q=within')).to.deep.equal(['c1:a:1', 'c3:b:1']);
    // Ids are for the case filter, not the search.
    expect(ids('q=b:1')).to.deep.equal([]);
    expect(ids('case=C3')).to.deep.equal(['c3:b:1']);
    expect(ids('arm=a&outcome=fail')).to.deep.equal(['c2:a:1']);
  });

  it('sorts by a column with missing values last either way, ties by job id', () => {
    expect(ids('sort=seconds')).to.deep.equal(['c2:a:1', 'c4:b:1', 'c1:a:1', 'c3:b:1']);
    expect(ids('sort=seconds&dir=desc')).to.deep.equal(['c1:a:1', 'c4:b:1', 'c2:a:1', 'c3:b:1']);
    expect(ids('sort=outcome&dir=desc')).to.deep.equal(['c1:a:1', 'c3:b:1', 'c2:a:1', 'c4:b:1']);
  });

  it('pages (the last page when asked past the end) and steps to previous and next in the same order', () => {
    const p = tablePage(idx, q('size=3&page=9&sort=seconds'));
    expect(p).to.deep.include({ total: 4, matched: 4, page: 2, pages: 2, size: 3 });
    expect(p.rows.map((r) => r.job_id)).to.deep.equal(['c3:b:1']);
    expect(neighbours(idx, q('sort=seconds'), 'c4:b:1')).to.deep.include({ prev: 'c2:a:1', next: 'c1:a:1', position: 2, matched: 4 });
    const out = neighbours(idx, q('arm=a'), 'c4:b:1');
    expect(out).to.deep.include({ prev: null, next: null, position: null, matched: 2 });
    expect(out.row?.output).to.equal('Zebra crossing');
  });

  it('refuses a parameter it cannot use, naming it', () => {
    for (const [s, name] of [
      ['sort=colour', 'sort'],
      ['dir=up', 'dir'],
      ['outcome=great', 'outcome'],
      ['page=0', 'page'],
      ['size=5000', 'size'],
    ]) {
      expect(() => q(s!)).to.throw(HttpError, new RegExp(`^${name}`));
    }
  });

  it('gives pass rate by check per arm, and a histogram only where scores are more than 0 and 1', () => {
    const d = distributionOf(
      ['a', 'b'],
      idx.rows.map((r) => r.view),
    );
    expect(d[0]!.byCheck).to.deep.equal([
      { check: 'exact', passed: 1, total: 2 },
      { check: 'length', passed: 2, total: 2 },
    ]);
    expect(d[0]!.scored).to.equal(2);
    expect(d[0]!.histogram!.map((b) => b.count)).to.deep.equal([0, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    const binary = index([row('x', 'a', true, { checks_passed: 1, checks_total: 1 }), row('y', 'a', false, { checks_passed: 0, checks_total: 1 })]);
    expect(
      distributionOf(
        ['a'],
        binary.rows.map((r) => r.view),
      )[0]!.histogram,
    ).to.equal(null);
    expect(histogram([2, 4, 12]).map((b) => [b.lo, b.count])).to.deep.equal([
      [2, 1],
      [3, 0],
      [4, 1],
      [5, 0],
      [6, 0],
      [7, 0],
      [8, 0],
      [9, 0],
      [10, 0],
      [11, 1],
    ]);
  });
});

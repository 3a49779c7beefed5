// The comparison page's per-case grid (pure): one line per (case, repetition) of any side, a cell per
// side that holds it (missing otherwise), outcomes by the comparison's own rule, and flips taken
// from the comparison itself, so the grid never marks what `evalog compare` did not count.
import { expect } from 'chai';
import { compareRuns, type CompareRun } from '../../src/projections/compare/index.js';
import { PUBLISHED_BOOTSTRAP } from '../../src/stats/index.js';
import { namedCore } from '../../src/projections/index.js';
import { totalsByAttribution } from '../../src/projections/usage/report.js';
import { gridOf } from '../../src/view/index.js';

// The grid reads the rows' cores: generic rows carry the core's names.
const cored = (runs: readonly CompareRun[]) =>
  runs.map((r) => ({ runId: r.runId, cores: r.rows.map((row) => namedCore(row, { job_id: String(row.job_id), usage: totalsByAttribution([]) })) }));

const row = (case_id: string, repetition: number, status: string, passed: boolean | null, arm = 'm') => ({
  job_id: `${case_id}:${arm}:${repetition}`,
  case_id,
  arm,
  repetition,
  status,
  passed,
  seconds: 1,
  usage: { total: { input_tokens: 1, output_tokens: 1, total_tokens: 2, unknown_calls: 0, complete: true } },
});
const run = (runId: string, rows: Record<string, unknown>[]): CompareRun => ({
  runId,
  rows,
  run: { suite: 'dataset', config: {}, provenance: {}, model: { name: runId } } as unknown as CompareRun['run'],
});

describe('viewer comparison of runs: the per-case grid', () => {
  it('lines sorted by case then repetition, missing cells absent, failed jobs as errors, flips from the comparison', () => {
    const runs = [
      run('a', [row('x', 2, 'succeeded', true), row('x', 1, 'succeeded', false), row('y', 1, 'failed', false), row('z', 1, 'succeeded', null)]),
      run('b', [row('x', 1, 'succeeded', true), row('x', 2, 'succeeded', true), row('y', 1, 'succeeded', true), row('w', 1, 'unfinished', null)]),
    ];
    const comparison = compareRuns(runs, { force: false, bootstrap: PUBLISHED_BOOTSTRAP });
    const grid = gridOf(cored(runs), comparison);
    expect(grid.map((g) => [g.case_id, g.repetition])).to.deep.equal([
      ['w', 1],
      ['x', 1],
      ['x', 2],
      ['y', 1],
      ['z', 1],
    ]);
    const outcomes = grid.map((g) => Object.fromEntries(Object.entries(g.cells).map(([side, c]) => [side, c.outcome])));
    expect(outcomes).to.deep.equal([{ b: 'unfinished' }, { a: 'fail', b: 'pass' }, { a: 'pass', b: 'pass' }, { a: 'error', b: 'pass' }, { a: 'ungraded' }]);
    expect(grid[1]!.cells.a!.job_id).to.equal('x:m:1');
    // Only x/1 paired with one side passing: y/1 failed on a (no verdict), so it is no flip.
    expect(comparison.comparisons[0]!.flipped).to.deep.equal({ a_only: [], b_only: [{ case_id: 'x', repetition: 1 }] });
    expect(grid.map((g) => g.flips)).to.deep.equal([[], [{ comparison: 0, passed: 'b' }], [], [], []]);
  });

  it('with several arms, one column per <run>:<arm> side and flips of each comparison named', () => {
    const runs = [run('a', [row('x', 1, 'succeeded', true, 'p'), row('x', 1, 'succeeded', false, 'q')]), run('b', [row('x', 1, 'succeeded', false, 'p')])];
    const comparison = compareRuns(runs, { force: false, bootstrap: PUBLISHED_BOOTSTRAP });
    const [g] = gridOf(cored(runs), comparison);
    expect(Object.keys(g!.cells).sort()).to.deep.equal(['a:p', 'a:q', 'b']);
    expect(g!.flips).to.deep.equal([
      { comparison: 0, passed: 'a:p' },
      { comparison: 1, passed: 'a:p' },
    ]);
  });
});

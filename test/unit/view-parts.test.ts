// Pure parts of the viewer: the summary layout for every suite's summary shape (values untouched),
// paired statistics found where a summary has them, row reading across row shapes, the line diff.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { ARM_MAP_SUMMARY_LAYOUT, type RowCore } from '../../src/projections/index.js';
import { totalsByAttribution } from '../../src/projections/usage/report.js';
import { CE_SUMMARY_LAYOUT } from '../../packages/suite-context-engineering/src/report.js';
import { contextSnapshotReport } from '../../packages/suite-context-snapshot/src/report.js';
import { compareArms, lineDiff, summaryView, viewRow } from '../../src/view/index.js';
import type { ViewRow } from '../../src/view/rows.js';

describe('evalog view: summary layout, rows and diff', () => {
  it('lays out the generic summary by arm, header apart, values as they are', () => {
    const v = summaryView({
      run_id: 'r',
      suite: 'smoke',
      jobs: 2,
      arms: { a: { n: 1, pass_rate: 0.1 + 0.2, stop_reasons: {} }, b: { n: 1, pass_rate: null, stop_reasons: { answered: 1 } } },
    });
    expect(v.header.map((l) => l.path)).to.deep.equal(['run_id', 'suite', 'jobs']);
    expect(v.arms.map((a) => a.arm)).to.deep.equal(['a', 'b']);
    expect(v.arms[0]!.leaves).to.deep.include({ path: 'pass_rate', value: 0.30000000000000004 });
    expect(v.fields).to.deep.equal(['n', 'pass_rate', 'stop_reasons', 'stop_reasons.answered']);
    expect(v.paired).to.deep.equal([]);
  });

  it("finds the generic summary's paired comparisons (a list of arm pairs) as blocks, not header fields", () => {
    const pair = (b: string, p: number) => ({ a: 'a', b, pairs: 2, a_only: 0, b_only: 2, mcnemar: { p_value: p } });
    const v = summaryView({ run_id: 'r', jobs: 6, arms: { a: { n: 2 }, b: { n: 2 }, c: { n: 2 } }, paired: [pair('b', 0.5), pair('c', 1)] });
    expect(v.header.map((l) => l.path)).to.deep.equal(['run_id', 'jobs']);
    expect(v.paired.map((blk) => blk.path)).to.deep.equal(['paired.0', 'paired.1']);
    expect(v.paired[1]!.leaves).to.deep.include.members([
      { path: 'b', value: 'c' },
      { path: 'mcnemar.p_value', value: 1 },
    ]);
    // One arm: nothing compared, and the empty list stays a plain header field.
    expect(summaryView({ jobs: 1, arms: { a: { n: 1 } }, paired: [] }).paired).to.deep.equal([]);
  });

  it('lays out the published context-snapshot summary (a map of arms) by the layout its report gives', () => {
    const summary = JSON.parse(readFileSync(new URL('../../results/context-snapshot/summary.json', import.meta.url), 'utf8'));
    expect(contextSnapshotReport.summaryLayout).to.equal(ARM_MAP_SUMMARY_LAYOUT);
    const v = summaryView(summary, contextSnapshotReport.summaryLayout);
    expect(v.arms.map((a) => a.arm)).to.deep.equal(['isolated_handoff', 'snapshot']);
    expect(v.arms[1]!.leaves).to.deep.include({ path: 'median_seconds', value: summary.snapshot.median_seconds });
    // Read as the generic summary (no `arms`), the same figures are header fields: the layout, not a guess, finds the arms.
    expect(summaryView(summary).arms).to.deep.equal([]);
  });

  it('lays out context-engineering cells by case, and finds McNemar/bootstrap blocks', () => {
    const v = summaryView(
      {
        jobs: 2,
        cells: { baseline: { s1: { n: 1 }, s2: { n: 2 } } },
        rollup: { baseline: { n: 3 } },
        paired: { mcnemar: { p_value: 0.5 }, bootstrap: { lower: -0.1 } },
      },
      CE_SUMMARY_LAYOUT,
    );
    expect(v.arms.map((a) => a.arm)).to.deep.equal(['baseline / s1', 'baseline / s2', 'baseline / all repetitions']);
    expect(v.paired).to.deep.equal([
      {
        path: 'paired',
        leaves: [
          { path: 'mcnemar.p_value', value: 0.5 },
          { path: 'bootstrap.lower', value: -0.1 },
        ],
      },
    ]);
    expect(v.header.map((l) => l.path)).to.deep.equal(['jobs']);
  });

  it("reads outcome, tokens and seconds from the row's core alone", () => {
    const usage = (calls: { total?: number }[]) =>
      totalsByAttribution(
        calls.map((c, i) => ({
          callId: `c${i}`,
          attribution: 'main',
          outcome: 'success',
          ...(c.total === undefined ? {} : { usage: { totalTokens: c.total } }),
        })),
      );
    const core = (over: Partial<RowCore>): RowCore => ({
      job_id: 'c:a:1',
      case_id: 'c',
      arm: 'a',
      repetition: 1,
      status: 'succeeded',
      passed: true,
      seconds: 1.5,
      usage: usage([]),
      ...over,
    });
    const { usage: _u, ...who } = core({});
    expect(viewRow(core({ usage: usage([{ total: 10 }, {}]) }))).to.deep.equal({ ...who, outcome: 'pass', tokens: 10, tokens_complete: false });
    expect(viewRow(core({ status: 'unfinished', passed: null })).outcome).to.equal('running');
    expect(viewRow(core({ status: 'failed', passed: false })).outcome).to.equal('error');
    expect(viewRow(core({ passed: false, usage: usage([{ total: 3 }, { total: 4 }]) }))).to.include({ outcome: 'fail', tokens: 7, tokens_complete: true });
    expect(viewRow(core({ passed: null }))).to.include({ outcome: 'done', tokens: 0, tokens_complete: true });
    // Calls without any reported usage: unknown, never zero.
    expect(viewRow(core({ usage: usage([{}]) }))).to.include({ tokens: null, tokens_complete: false });
  });

  it('pairs two arms by case and repetition: only-a counts the cases A alone passed, only-b those B alone passed', () => {
    const row = (c: string, arm: string, outcome: ViewRow['outcome'], repetition = 1): ViewRow => ({
      job_id: `${c}:${arm}:${repetition}`,
      case_id: c,
      arm,
      repetition,
      status: outcome === 'error' ? 'failed' : 'succeeded',
      passed: outcome === 'pass',
      outcome,
      tokens: null,
      tokens_complete: true,
      seconds: null,
    });
    // Hand-made: A alone passes c1 and c2, B alone passes c3, both pass c4, both fail c5, c6 has no B row.
    const rows = [
      row('c1', 'A', 'pass'),
      row('c1', 'B', 'fail'),
      row('c2', 'B', 'error'),
      row('c2', 'A', 'pass'),
      row('c3', 'A', 'fail'),
      row('c3', 'B', 'pass'),
      row('c4', 'A', 'pass'),
      row('c4', 'B', 'pass'),
      row('c5', 'A', 'fail'),
      row('c5', 'B', 'fail'),
      row('c6', 'A', 'pass'),
      row('c1', 'C', 'pass'),
    ];
    const v = compareArms(rows, ['A', 'B', 'C'], 'A', 'B', []);
    expect(v.table).to.deep.equal({ both_pass: 1, only_a: 2, only_b: 1, both_fail: 1, incomplete: 1 });
    expect(v.pairs.map((p) => [p.case, p.a?.job_id ?? null, p.b?.job_id ?? null, p.discordant])).to.deep.equal([
      ['c1', 'c1:A:1', 'c1:B:1', true],
      ['c2', 'c2:A:1', 'c2:B:1', true],
      ['c3', 'c3:A:1', 'c3:B:1', true],
      ['c4', 'c4:A:1', 'c4:B:1', false],
      ['c5', 'c5:A:1', 'c5:B:1', false],
      ['c6', 'c6:A:1', null, false],
    ]);
    // The same rows compared the other way round swap the two discordant counts, nothing else.
    expect(compareArms(rows, ['A', 'B', 'C'], 'B', 'A', []).table).to.deep.equal({ both_pass: 1, only_a: 1, only_b: 2, both_fail: 1, incomplete: 1 });
  });

  it("shows the summary's paired block of the two arms compared (either order) and blocks that name no arms, not the other pairs'", () => {
    const block = (path: string, a: string | null, b: string | null) => ({
      path,
      leaves: [...(a === null ? [] : [{ path: 'a', value: a }]), ...(b === null ? [] : [{ path: 'b', value: b }]), { path: 'mcnemar_p', value: 0.5 }],
    });
    const stats = [block('paired.0', 'A', 'B'), block('paired.1', 'A', 'C'), block('paired.2', 'B', 'C'), block('qa.stats', null, null)];
    const shown = (a: string, b: string) => compareArms([], ['A', 'B', 'C'], a, b, stats).stats.map((s) => s.path);
    expect(shown('A', 'B')).to.deep.equal(['paired.0', 'qa.stats']);
    expect(shown('C', 'B')).to.deep.equal(['paired.2', 'qa.stats']);
  });

  it('diffs revisions line by line, minimal and stable', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc')).to.deep.equal([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'x' },
      { op: ' ', text: 'c' },
    ]);
    expect(lineDiff('same', 'same')).to.deep.equal([{ op: ' ', text: 'same' }]);
    expect(lineDiff('', 'new').filter((l) => l.op !== ' ')).to.deep.equal([
      { op: '-', text: '' },
      { op: '+', text: 'new' },
    ]);
  });
});

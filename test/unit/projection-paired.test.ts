// The generic summary's paired comparison of arms: `evalog compare`'s block for the run's arms
// (the same figures as compareRuns on the same rows), which (case, repetition)s pair, the 2×2
// counts, the exact McNemar p, the recorded bootstrap, which pairs of arms, and the table's line.
import { expect } from 'chai';
import { compareRuns, type CompareRun, type SideComparison } from '../../src/projections/compare/index.js';
import { ALL_PAIRS_MAX_ARMS, pairedLine, summarize, summaryTable } from '../../src/projections/index.js';
import type { Row, RowUsage } from '../../src/projections/rows.js';
import { mcnemarExactP, pairedBootstrap, PUBLISHED_BOOTSTRAP, type Pair } from '../../src/stats/index.js';

const header = { runId: 'r', suite: 'smoke', model: 'evalog-scripted', scripted: true };
const pairedOf = (rows: readonly Row[]): SideComparison[] => summarize(rows, header).paired;

/** What `evalog compare` gives for the run's arms (one run, several arms), its sides renamed from `r:<arm>` to the arm. */
function compared(rows: readonly Row[]): SideComparison[] {
  const run = { suite: 'smoke', config: {}, provenance: {}, model: { name: 'evalog-scripted' } } as unknown as CompareRun['run'];
  const c = compareRuns([{ runId: 'r', rows, run }], { force: false, bootstrap: PUBLISHED_BOOTSTRAP });
  return c.comparisons.map((x) => ({ ...x, a: x.a.replace(/^r:/, ''), b: x.b.replace(/^r:/, '') }));
}
const usage: RowUsage = { input_tokens: 1, output_tokens: 1, total_tokens: 2, unknown_calls: 0, complete: true };

/** A graded, succeeded job of `arm` on case `c`, repetition `rep`. */
function row(arm: string, c: string, passed: boolean | null, o: Partial<Row> = {}, rep = 1): Row {
  return {
    job_id: `${c}:${arm}:${rep}`,
    case_id: c,
    arm,
    repetition: rep,
    seed: 7 + rep,
    status: 'succeeded',
    failure: null,
    passed,
    checks: {},
    checks_passed: 0,
    checks_total: 0,
    stop_reason: 'answered',
    turns: 1,
    tool_calls: 0,
    revisions: 0,
    calls: 1,
    failed_calls: 0,
    usage: { parent: usage, worker: usage, total: usage },
    seconds: 1,
    started_at: '2026-01-01T00:00:00.000Z',
    ...o,
  };
}

/** Rows of arms a and b from outcome strings, one character per case: '1' passed, '0' not. */
function outcomes(a: string, b: string): Row[] {
  return [...a].flatMap((x, i) => [row('a', `c${i}`, x === '1'), row('b', `c${i}`, b[i] === '1')]);
}

const failed = (arm: string, c: string) => row(arm, c, false, { status: 'failed', failure: { reason: 'provider_failed', message: 'x' }, stop_reason: null });
const unfinished = (arm: string, c: string) => row(arm, c, null, { status: 'unfinished', seconds: null, stop_reason: null });

describe('paired comparison of arms (generic summary)', () => {
  it("is compare's block for the run's arms, figure for figure, with compare's default bootstrap seed recorded", () => {
    const rows = [
      ...outcomes('11110000', '11101110'),
      row('a', 'tok', true, {
        usage: {
          parent: usage,
          worker: usage,
          total: { ...usage, input_tokens: 9, output_tokens: null, total_tokens: null, unknown_calls: 1, complete: false },
        },
      }),
      row('b', 'tok', false, { seconds: 3 }),
      failed('a', 'f'),
      row('b', 'f', true),
    ];
    const p = pairedOf(rows);
    expect(p).to.have.length(1);
    expect(p).to.deep.equal(compared(rows));
    expect(p[0]!.bootstrap).to.include({ seed: PUBLISHED_BOOTSTRAP.seed, iterations: PUBLISHED_BOOTSTRAP.iterations, alpha: PUBLISHED_BOOTSTRAP.alpha });
    // The pair whose usage is unknown on one side is counted apart, never as 0 tokens.
    expect(p[0]!.tokens.total).to.include({ known: 8, unknown: 1 });
    expect(p[0]!.seconds).to.include({ known: 9, unknown: 0 });
  });

  it('counts both, a only, b only and neither; rates over the pairs; the exact McNemar p; the bootstrap of rate_b − rate_a; the flips', () => {
    // 8 pairs: both 3, a only 1, b only 3, neither 1.
    const [p, ...more] = pairedOf(outcomes('11110000', '11101110'));
    expect(more).to.deep.equal([]);
    expect(p).to.deep.include({ a: 'a', b: 'b', n: 8, both: 3, a_only: 1, b_only: 3, neither: 1, passed_a: 4, passed_b: 6, rate_a: 4 / 8, rate_b: 6 / 8 });
    // 2·(C(4,0)+C(4,1))/2⁴
    expect(p!.mcnemar_p).to.equal(0.625);
    // The pairs in (case, repetition) order, as the bootstrap maps its draws to them.
    const pairs: Pair[] = [...'11110000'].map((x, i) => [x === '1', '11101110'[i] === '1']);
    const boot = pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP);
    expect(p!.bootstrap).to.deep.equal({ difference: 6 / 8 - 4 / 8, lower: boot.lower, upper: boot.upper, seed: 4789, iterations: 10000, alpha: 0.05 });
    expect(p!.flipped).to.deep.equal({ a_only: [{ case_id: 'c3', repetition: 1 }], b_only: ['c4', 'c5', 'c6'].map((case_id) => ({ case_id, repetition: 1 })) });
  });

  it('p-value: 8 discordant pairs for b, 1 for a give the published 2·10/2⁹', () => {
    const [p] = pairedOf(outcomes('111100000000', '111011111111'));
    expect(p).to.include({ a_only: 1, b_only: 8, both: 3, neither: 0 });
    expect(p!.mcnemar_p)
      .to.equal(2 * 0.5 ** 9 * 10)
      .and.to.equal(mcnemarExactP(1, 8));
  });

  it('a case failed, unfinished or not run in either arm is unpaired, not a loss, and counted by why', () => {
    const rows = [
      ...outcomes('10', '01'),
      failed('a', 'f'),
      row('b', 'f', true),
      row('a', 'u', true),
      unfinished('b', 'u'),
      row('a', 'missing', true), // b never ran it
      row('c', 'only_c', true), // neither a nor b ran it
    ];
    const ab = pairedOf(rows).find((p) => p.a === 'a' && p.b === 'b')!;
    expect(ab).to.deep.include({
      n: 2,
      a_only: 1,
      b_only: 1,
      both: 0,
      neither: 0,
      unpaired: { total: 3, missing_a: 0, missing_b: 1, ungraded_a: 1, ungraded_b: 1 },
    });
    expect(ab.rate_a, 'over the pairs only: the failed and missing jobs are not in it').to.equal(0.5);
    // A failed job still counts as not passed in the arm's own pass_rate; the pair is what it leaves out.
    expect(summarize(rows, header).arms.a!.pass_rate).to.equal(3 / 5);
  });

  it('pairs by case and repetition: the repetitions of a case are pairs of their own', () => {
    const rows = [row('a', 'c', true, {}, 1), row('b', 'c', false, {}, 1), row('a', 'c', false, {}, 2), row('b', 'c', true, {}, 2), row('b', 'c', true, {}, 3)];
    expect(pairedOf(rows)[0]).to.deep.include({ n: 2, a_only: 1, b_only: 1, unpaired: { total: 1, missing_a: 1, missing_b: 0, ungraded_a: 0, ungraded_b: 0 } });
  });

  it('no pair at all: counts 0, rates, p and bootstrap null', () => {
    const [p] = pairedOf([failed('a', 'c'), row('b', 'c', true)]);
    expect(p).to.deep.include({
      a: 'a',
      b: 'b',
      n: 0,
      both: 0,
      a_only: 0,
      b_only: 0,
      neither: 0,
      rate_a: null,
      rate_b: null,
      mcnemar_p: null,
      bootstrap: null,
    });
    expect(p!.unpaired.total).to.equal(1);
  });

  it('one arm: an empty list', () => {
    expect(pairedOf([row('a', 'c', true), row('a', 'd', false)])).to.deep.equal([]);
  });

  it('three arms give the three pairs, arms sorted whatever the row order', () => {
    const rows = ['z', 'm', 'a'].flatMap((arm) => [row(arm, 'c1', arm !== 'z'), row(arm, 'c2', arm === 'z')]);
    const pairs = pairedOf(rows);
    expect(pairs.map((p) => [p.a, p.b])).to.deep.equal([
      ['a', 'm'],
      ['a', 'z'],
      ['m', 'z'],
    ]);
    expect(pairs.find((p) => p.b === 'z')).to.include({ a_only: 1, b_only: 1 });
    expect(pairs[0]).to.include({ both: 1, neither: 1 });
    expect(pairs).to.deep.equal(compared(rows));
  });

  it(`up to ${ALL_PAIRS_MAX_ARMS} arms every pair; past that each arm against the first`, () => {
    const arms = (k: number) => Array.from({ length: k }, (_, i) => `arm${i}`).reverse();
    expect(pairedOf(arms(ALL_PAIRS_MAX_ARMS).map((arm) => row(arm, 'c', true)))).to.have.length((ALL_PAIRS_MAX_ARMS * (ALL_PAIRS_MAX_ARMS - 1)) / 2);
    const seven = pairedOf(arms(7).map((arm) => row(arm, 'c', true)));
    expect(seven.map((p) => `${p.a} vs ${p.b}`)).to.deep.equal(['arm1', 'arm2', 'arm3', 'arm4', 'arm5', 'arm6'].map((b) => `arm0 vs ${b}`));
    expect(seven.every((p) => p.n === 1 && p.both === 1)).to.equal(true);
  });

  it('the table prints one line per pair under the arms: discordant counts, p, the difference with its interval', () => {
    const rows = [...outcomes('11110000', '11101110'), failed('a', 'f'), row('b', 'f', true)];
    const s = summarize(rows, header);
    const [p] = s.paired;
    const pts = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(1)}`;
    const lines = summaryTable(s).trimEnd().split('\n');
    expect(lines.at(-1)).to.equal(
      `paired a vs b: 8 pairs, a only 1, b only 3, p=0.625, difference +25.0 points, 95% CI [${pts(p!.bootstrap!.lower)}, ${pts(p!.bootstrap!.upper)}], unpaired 1`,
    );
    expect(lines.at(-2), 'the last arm row is above it').to.match(/^b\s+9/);
    expect(summaryTable(summarize([row('a', 'c', true)], header))).to.not.include('paired');
  });

  it('the line: p below 0.001 is not printed as 0; no pair prints p=- and no difference', () => {
    const [strong] = pairedOf(outcomes('0'.repeat(20), '1'.repeat(20)));
    expect(pairedLine(strong!)).to.equal('paired a vs b: 20 pairs, a only 0, b only 20, p<0.001, difference +100.0 points, 95% CI [+100.0, +100.0]');
    const [none] = pairedOf([failed('a', 'c'), row('b', 'c', true), row('a', 'd', true), unfinished('b', 'd'), row('b', 'e', true)]);
    expect(pairedLine(none!)).to.equal('paired a vs b: 0 pairs, a only 0, b only 0, p=-, unpaired 3');
  });
});

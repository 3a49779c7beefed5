// The generic summary's paired comparison of arms: which (case, repetition)s pair, the 2×2 counts,
// the exact McNemar p, which pairs of arms are compared, and the line under the CLI's table.
import { expect } from 'chai';
import { ALL_PAIRS_MAX_ARMS, armPairs, pairedArms, pairedLine, summarize, summaryTable } from '../../src/projections/index.js';
import type { Row, RowUsage } from '../../src/projections/rows.js';
import { mcnemarExactP } from '../../src/stats/index.js';

const header = { runId: 'r', suite: 'smoke', model: 'evalog-scripted', scripted: true };
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
  it('counts both, a only, b only and neither; rates over the pairs; difference is rate_b − rate_a; the exact McNemar p', () => {
    // 8 pairs: both 3, a only 1, b only 3, neither 1.
    const [p, ...more] = pairedArms(outcomes('11110000', '11101110'));
    expect(more).to.deep.equal([]);
    expect(p).to.deep.equal({
      a: 'a',
      b: 'b',
      pairs: 8,
      both: 3,
      a_only: 1,
      b_only: 3,
      neither: 1,
      rate_a: 4 / 8,
      rate_b: 6 / 8,
      difference: 6 / 8 - 4 / 8,
      // 2·(C(4,0)+C(4,1))/2⁴
      mcnemar: { p_value: 0.625 },
      unpaired: 0,
    });
  });

  it('p-value: 8 discordant pairs for b, 1 for a give the published 2·10/2⁹', () => {
    const [p] = pairedArms(outcomes('111100000000', '111011111111'));
    expect(p).to.include({ a_only: 1, b_only: 8, both: 3, neither: 0 });
    expect(p!.mcnemar.p_value)
      .to.equal(2 * 0.5 ** 9 * 10)
      .and.to.equal(mcnemarExactP(1, 8));
  });

  it('a case failed, unfinished or not run in either arm is unpaired, not a loss; pairs + unpaired covers every (case, repetition) of the run', () => {
    const rows = [
      ...outcomes('10', '01'),
      failed('a', 'f'),
      row('b', 'f', true),
      row('a', 'u', true),
      unfinished('b', 'u'),
      row('a', 'missing', true), // b never ran it
      row('c', 'only_c', true), // neither a nor b ran it
    ];
    const ab = pairedArms(rows).find((p) => p.a === 'a' && p.b === 'b')!;
    expect(ab).to.include({ pairs: 2, a_only: 1, b_only: 1, both: 0, neither: 0, unpaired: 4 });
    expect(ab.rate_a, 'over the pairs only: the failed and missing jobs are not in it').to.equal(0.5);
    // A failed job still counts as not passed in the arm's own pass_rate; the pair is what it leaves out.
    expect(summarize(rows, header).arms.a!.pass_rate).to.equal(3 / 5);
    for (const p of pairedArms(rows)) expect(p.pairs + p.unpaired, `${p.a} vs ${p.b}`).to.equal(6);
  });

  it('pairs by case and repetition: the repetitions of a case are pairs of their own', () => {
    const rows = [row('a', 'c', true, {}, 1), row('b', 'c', false, {}, 1), row('a', 'c', false, {}, 2), row('b', 'c', true, {}, 2), row('b', 'c', true, {}, 3)];
    expect(pairedArms(rows)[0]).to.include({ pairs: 2, a_only: 1, b_only: 1, unpaired: 1 });
  });

  it('no pair at all: counts 0, rates, difference and p null', () => {
    const [p] = pairedArms([failed('a', 'c'), row('b', 'c', true)]);
    expect(p).to.deep.equal({
      a: 'a',
      b: 'b',
      pairs: 0,
      both: 0,
      a_only: 0,
      b_only: 0,
      neither: 0,
      rate_a: null,
      rate_b: null,
      difference: null,
      mcnemar: { p_value: null },
      unpaired: 1,
    });
  });

  it('one arm: no comparison', () => {
    expect(pairedArms([row('a', 'c', true), row('a', 'd', false)])).to.deep.equal([]);
    expect(armPairs(['only'])).to.deep.equal([]);
  });

  it('three arms give the three pairs, arms sorted whatever the row order', () => {
    const rows = ['z', 'm', 'a'].flatMap((arm) => [row(arm, 'c1', arm !== 'z'), row(arm, 'c2', arm === 'z')]);
    const pairs = pairedArms(rows);
    expect(pairs.map((p) => [p.a, p.b])).to.deep.equal([
      ['a', 'm'],
      ['a', 'z'],
      ['m', 'z'],
    ]);
    expect(pairs.find((p) => p.b === 'z')).to.include({ a_only: 1, b_only: 1 });
    expect(pairs[0]).to.include({ both: 1, neither: 1 });
  });

  it(`up to ${ALL_PAIRS_MAX_ARMS} arms every pair; past that each arm against the first`, () => {
    const arms = (k: number) => Array.from({ length: k }, (_, i) => `arm${i}`).reverse();
    expect(armPairs(arms(ALL_PAIRS_MAX_ARMS))).to.have.length((ALL_PAIRS_MAX_ARMS * (ALL_PAIRS_MAX_ARMS - 1)) / 2);
    const seven = pairedArms(arms(7).map((arm) => row(arm, 'c', true)));
    expect(seven.map((p) => `${p.a} vs ${p.b}`)).to.deep.equal(['arm1', 'arm2', 'arm3', 'arm4', 'arm5', 'arm6'].map((b) => `arm0 vs ${b}`));
    expect(seven.every((p) => p.pairs === 1 && p.both === 1)).to.equal(true);
  });

  it('the summary carries the pairs, and the table prints one line per pair under the arms', () => {
    const rows = [...outcomes('11110000', '11101110'), failed('a', 'f'), row('b', 'f', true)];
    const s = summarize(rows, header);
    expect(s.paired).to.deep.equal(pairedArms(rows));
    const lines = summaryTable(s).trimEnd().split('\n');
    expect(lines.at(-1)).to.equal('paired a vs b: 8 pairs, a only 1, b only 3, p=0.625, unpaired 1');
    expect(lines.at(-2), 'the last arm row is above it').to.match(/^b\s+9/);
    expect(summaryTable(summarize([row('a', 'c', true)], header))).to.not.include('paired');
  });

  it('the line: p below 0.001 is not printed as 0, and no pair prints p=-', () => {
    const base = { a: 'x', b: 'y', pairs: 20, both: 0, a_only: 0, b_only: 20, neither: 0, rate_a: 0, rate_b: 1, difference: 1, unpaired: 0 };
    expect(pairedLine({ ...base, mcnemar: { p_value: mcnemarExactP(0, 20) } })).to.equal('paired x vs y: 20 pairs, x only 0, y only 20, p<0.001');
    expect(pairedLine({ ...base, pairs: 0, b_only: 0, rate_a: null, rate_b: null, difference: null, unpaired: 3, mcnemar: { p_value: null } })).to.equal(
      'paired x vs y: 0 pairs, x only 0, y only 0, p=-, unpaired 3',
    );
  });
});

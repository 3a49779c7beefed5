import { expect } from 'chai';
import type { Row, RowUsage } from '../../src/projections/rows.js';
import { median, summarize } from '../../src/projections/summary.js';

const header = { runId: 'run-s', suite: 'smoke', model: 'evalog-scripted', scripted: true };
const known = (total: number): RowUsage => ({ input_tokens: total - 10, output_tokens: 10, total_tokens: total, unknown_calls: 0, complete: true });
const partial = (total: number, unknown: number): RowUsage => ({ ...known(total), unknown_calls: unknown, complete: false });

let next = 0;
/** A row as the rows projection would give it; a succeeded, passed job unless told otherwise. */
function row(arm: string, o: Partial<Row> = {}, total: RowUsage = known(100)): Row {
  next += 1;
  return {
    job_id: `case_${next}:${arm}:1`,
    case_id: `case_${next}`,
    arm,
    repetition: 1,
    seed: 1,
    status: 'succeeded',
    failure: null,
    passed: true,
    checks: {},
    checks_passed: 3,
    checks_total: 3,
    stop_reason: 'answered',
    turns: 2,
    tool_calls: 2,
    revisions: 1,
    calls: 3,
    failed_calls: 0,
    usage: { parent: known(0), worker: total, total },
    seconds: 1,
    started_at: '2025-01-01T00:00:00.000Z',
    ...o,
  };
}

describe('summarize', () => {
  it('carries the header and counts all jobs', () => {
    const s = summarize([row('a'), row('b')], header);
    expect(s).to.include({ run_id: 'run-s', suite: 'smoke', model: 'evalog-scripted', scripted: true, jobs: 2 });
  });

  it('lists arms in sorted order, whatever the row order', () => {
    const s = summarize([row('z_arm'), row('a_arm'), row('m_arm')], header);
    expect(Object.keys(s.arms)).to.deep.equal(['a_arm', 'm_arm', 'z_arm']);
  });

  it('pass_rate is passed over finished jobs, failed jobs counted as not passed, unfinished left out', () => {
    const rows = [
      row('a'),
      row('a', { passed: false }),
      row('a', { status: 'failed', passed: false, failure: { reason: 'parent_no_task', message: 'm' }, stop_reason: null }),
      row('a', { status: 'unfinished', passed: null, seconds: null, stop_reason: null }),
    ];
    const a = summarize(rows, header).arms.a!;
    expect(a).to.include({ n: 4, succeeded: 2, failed: 1, unfinished: 1, passed: 1 });
    expect(a.pass_rate).to.equal(1 / 3);
  });

  it('pass_rate is null when no job of the arm finished', () => {
    expect(summarize([row('a', { status: 'unfinished', passed: null })], header).arms.a!.pass_rate).to.equal(null);
  });

  it('tallies stop and failure reasons with sorted keys', () => {
    const rows = [
      row('a', { stop_reason: 'turn_cap' }),
      row('a'),
      row('a', { stop_reason: 'turn_cap' }),
      row('a', { status: 'failed', passed: false, stop_reason: null, failure: { reason: 'provider_failed', message: 'x' } }),
    ];
    const a = summarize(rows, header).arms.a!;
    expect(a.stop_reasons).to.deep.equal({ answered: 1, turn_cap: 2 });
    expect(Object.keys(a.stop_reasons)).to.deep.equal(['answered', 'turn_cap']);
    expect(a.failure_reasons).to.deep.equal({ provider_failed: 1 });
  });

  it('sums calls, failed calls and known tokens per arm', () => {
    const a = summarize([row('a', { calls: 3, failed_calls: 1 }, known(100)), row('a', { calls: 5 }, known(300))], header).arms.a!;
    expect(a).to.include({ calls: 8, failed_calls: 1, usage_complete: true });
    expect(a.tokens).to.deep.equal({
      input: { sum: 380, unknown_calls: 0 },
      output: { sum: 20, unknown_calls: 0 },
      total: { sum: 400, unknown_calls: 0 },
    });
    expect(a.mean_total_tokens).to.equal(200);
  });

  it('mean_total_tokens is null when any call of the arm did not report usage, and the unknown calls are kept', () => {
    const s = summarize([row('a', {}, known(100)), row('a', {}, partial(300, 2)), row('b', {}, known(50))], header);
    expect(s.arms.a!.mean_total_tokens).to.equal(null);
    expect(s.arms.a!.usage_complete).to.equal(false);
    expect(s.arms.a!.tokens.total).to.deep.equal({ sum: 400, unknown_calls: 2 });
    // The other arm is complete and keeps its mean.
    expect(s.arms.b!.mean_total_tokens).to.equal(50);
  });

  it('keeps unknown tokens null: an arm whose jobs reported nothing has no sum and no mean, with the unknown calls beside', () => {
    const none: RowUsage = { input_tokens: null, output_tokens: null, total_tokens: null, unknown_calls: 1, complete: false };
    const s = summarize([row('a', {}, none), row('a', {}, none), row('b', {}, none), row('b', {}, known(70))], header);
    expect(s.arms.a!.tokens.total).to.deep.equal({ sum: null, unknown_calls: 2 });
    expect(s.arms.a!.mean_total_tokens).to.equal(null);
    // Known values are summed; the job without usage is not averaged in as a zero.
    expect(s.arms.b!.tokens.total).to.deep.equal({ sum: 70, unknown_calls: 1 });
    expect(s.arms.b!.mean_total_tokens).to.equal(null);
  });

  it('mean and median seconds skip jobs without a duration; the median of an odd count is the middle value', () => {
    const a = summarize(
      [row('a', { seconds: 9 }), row('a', { seconds: 1 }), row('a', { seconds: 2 }), row('a', { status: 'unfinished', passed: null, seconds: null })],
      header,
    ).arms.a!;
    expect(a.mean_seconds).to.equal(4);
    expect(a.median_seconds).to.equal(2);
  });

  it('the median of an even count is the mean of the two middle values', () => {
    const a = summarize([row('a', { seconds: 10 }), row('a', { seconds: 1 }), row('a', { seconds: 4 }), row('a', { seconds: 3 })], header).arms.a!;
    expect(a.median_seconds).to.equal(3.5);
  });

  it('median: numeric order (not string order), and null for no values', () => {
    expect(median([10, 9, 100])).to.equal(10);
    expect(median([2, 1])).to.equal(1.5);
    expect(median([])).to.equal(null);
  });

  it('an empty run has no arms', () => {
    expect(summarize([], header)).to.deep.include({ jobs: 0, arms: {} });
  });
});

import { expect } from 'chai';
import { rebuild } from 'evalog';
import type { DataOf } from 'evalog';
import { MemoryEventLog } from 'evalog/testing';
// The viewer's summary table has no public counterpart.
import { summaryView } from '../../../../src/view/summary-table.js';
import { failedData, requestedData, succeededData, Timeline } from '../../../../test/support/build-events.js';
import { contextEngineeringSuite, type CeSummary } from '../../src/index.js';
import { distribution } from '../../src/rollup.js';

// A run of two cells: cell `a` twice (two repetitions of one scenario), cell `b` once. The calls
// report usage (with cache reads), report none, fail by timeout or never settle, so every figure of
// the roll-up is known by hand.
const scored = (success: boolean): DataOf<'ScenarioScored'> => ({
  success,
  submitted: true,
  stateChecks: [{ checkId: 's', passed: success, expected: 'x', actual: success ? 'x' : 'y' }],
  evidence: [],
  staleMisuses: success ? [] : [{ effect: 'e', reason: 'r' }],
  duplicateEffects: [],
});

function timeline(): Timeline {
  const t = new Timeline('ce-run');
  const job = (arm: string, repetition: number) => ({
    jobId: `stale_evidence:${arm}:${repetition}`,
    caseId: 'stale_evidence',
    arm,
    repetition,
    seed: repetition,
    meta: { scenario: 'stale_evidence', recovery: null },
  });
  const jobs = [job('a', 1), job('a', 2), job('b', 1)];
  t.add(undefined, 0, 'RunStarted', {
    suite: 'context-engineering',
    config: {},
    configHash: 'h',
    seed: 1,
    orderSeed: 1,
    jobs,
    model: { name: 'm', scripted: false, baseUrlEnv: 'X', apiKeyEnv: null },
    concurrency: 1,
    provenance: {},
  });
  const start = (j: (typeof jobs)[number], at: number) =>
    t.add(j.jobId, at, 'JobStarted', { caseId: j.caseId, arm: j.arm, repetition: j.repetition, seed: j.seed });
  const [a1, a2, b1] = jobs as [(typeof jobs)[number], (typeof jobs)[number], (typeof jobs)[number]];
  // a, repetition 1: a main call with usage and a cache read (40 of its 100 prompt tokens), a query that times out.
  start(a1, 0);
  t.add(a1.jobId, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
  t.add(
    a1.jobId,
    60,
    'ProviderCallSucceeded',
    succeededData('worker/turn-1/attempt-1', { usage: { prompt: 100, completion: 10, total: 110, cached: 40 }, latencyMs: 50 }),
  );
  t.add(a1.jobId, 70, 'ProviderCallRequested', requestedData('worker/turn-1/tool-0/query-0/attempt-1', { attribution: 'query' }));
  t.add(a1.jobId, 270, 'ProviderCallFailed', failedData('worker/turn-1/tool-0/query-0/attempt-1', { kind: 'timeout', status: null, latencyMs: 200 }));
  t.add(a1.jobId, 280, 'ScenarioScored', scored(true));
  t.add(a1.jobId, 1000, 'JobSucceeded', { passed: true });
  // a, repetition 2: a success without usage, one with usage, an injected query failure, a failed score.
  start(a2, 0);
  t.add(a2.jobId, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
  t.add(a2.jobId, 40, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-1', { usage: null, latencyMs: 30 }));
  t.add(a2.jobId, 50, 'FaultInjected', { injectionId: 'q', kind: 'query_failure', target: 'q', detail: 'd', notice: 'n', mutation: null });
  t.add(a2.jobId, 60, 'ProviderCallRequested', requestedData('worker/turn-2/attempt-1', { attribution: 'main' }));
  t.add(
    a2.jobId,
    130,
    'ProviderCallSucceeded',
    succeededData('worker/turn-2/attempt-1', { usage: { prompt: 200, completion: 20, total: 220 }, latencyMs: 70 }),
  );
  t.add(a2.jobId, 140, 'ScenarioScored', scored(false));
  t.add(a2.jobId, 3000, 'JobSucceeded', { passed: false });
  // b, repetition 1: one call that never settled (the writer died): no latency, no usage, outcome unknown.
  start(b1, 0);
  t.add(b1.jobId, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
  return t;
}

/** The run's outputs, derived from its events alone as `evalog rebuild` derives them. */
async function outputs() {
  const log = MemoryEventLog.open();
  await log.append(timeline().events);
  return rebuild({ log, runId: 'ce-run', suite: contextEngineeringSuite });
}

describe('context-engineering: the per-cell roll-up across repetitions, and a usage report per repetition', () => {
  it('summary.json rolls each cell up over its repetitions: success rate, failure composition, calls, tokens, unknown usage, cache, latency', async () => {
    const out = await outputs();
    const a = (out.summary as CeSummary).rollup.a!;
    expect(a).to.deep.include({ repetitions: 2, jobs: 2 });
    expect(a.success).to.deep.equal({ successes: 1, jobs: 2, rate: 0.5 });
    expect(a.failures).to.deep.equal({ jobs: 1, by_type: { stale_misuse: 1, state: 1 } });
    expect(a.calls).to.deep.equal({ total: 4, main: 3, query: 1, child: 0, unknown: 0, failed: 1, failed_by_kind: { timeout: 1 } });
    expect(a.injections).to.deep.equal({ query_failure: 1 });
    // Known totals per repetition: 110 (the timed-out query unknown) and 220 (one success without usage unknown).
    expect(a.known_tokens.total_tokens).to.deep.equal({
      sum: 330,
      known_calls: 2,
      unknown_calls: 2,
      per_repetition: { n: 2, min: 110, median: 165, mean: 165, p95: 220, max: 220 },
      unknown_repetitions: 0,
    });
    // Input excludes the cache reads, as the usage report counts it: 100 − 40, and 200.
    expect(a.known_tokens.input_tokens.per_repetition).to.deep.include({ min: 60, max: 200 });
    expect(a.unknown_usage).to.deep.equal({ calls_without_usage: 2, calls: 4, ratio: 0.5 });
    expect(a.cache).to.deep.equal({
      read_tokens: { sum: 40, known_calls: 1, unknown_calls: 3 },
      write_tokens: { sum: null, known_calls: 0, unknown_calls: 4 },
    });
    expect(a.latency_ms).to.deep.equal({ n: 4, min: 30, median: 60, mean: 87.5, p95: 200, max: 200 });
    expect(a.wall_seconds).to.deep.equal({ n: 2, min: 1, median: 2, mean: 2, p95: 3, max: 3 });

    const b = (out.summary as CeSummary).rollup.b!;
    // Nothing known in its only repetition: no distribution, never a zero.
    expect(b.known_tokens.total_tokens).to.deep.equal({
      sum: null,
      known_calls: 0,
      unknown_calls: 1,
      per_repetition: { n: 0, min: null, median: null, mean: null, p95: null, max: null },
      unknown_repetitions: 1,
    });
    expect(b.unknown_usage).to.deep.equal({ calls_without_usage: 1, calls: 1, ratio: 1 });
    expect(b.latency_ms.n).to.equal(0);
    expect(b.calls.failed).to.equal(0);
    expect(out.table()).to.match(/^a\s+2\s+2\s+1\/2\s+stale_misusex1,statex1\s+4\s+1\s+2\/4\s+165\s+330 \(2 unknown\)\s+40 \(3 unknown\)\s+60\/200$/m);
  });

  it('each repetition of each cell has its own usage report file, the aggregate of its jobs’ calls', async () => {
    const out = await outputs();
    expect(out.files.map((f) => f.name)).to.deep.equal(['usage.a.rep-1.json', 'usage.a.rep-2.json', 'usage.b.rep-1.json']);
    const rep = (name: string) =>
      out.files.find((f) => f.name === name)!.value as { cell: string; repetition: number; jobs: string[]; report: (typeof out.usage)['report'] };
    const a1 = rep('usage.a.rep-1.json');
    expect(a1).to.deep.include({ run_id: 'ce-run', cell: 'a', repetition: 1, jobs: ['stale_evidence:a:1'] });
    expect(a1.report).to.deep.include({ schemaVersion: 1, calls: 2 });
    expect(a1.report.outcomes).to.deep.equal({ success: 1, failure: 1, aborted: 0, unknown: 0 });
    expect(a1.report.failed.calls).to.equal(1);
    expect(a1.report.byAttribution.query.calls).to.equal(1);
    expect(a1.report.usage.fields.totalTokens).to.deep.equal({ sum: 110, knownCalls: 1, unknownCalls: 1 });
    expect(rep('usage.a.rep-2.json').report.usage).to.deep.include({ callsWithUsage: 1, callsWithoutUsage: 1 });
    expect(rep('usage.b.rep-1.json').report.outcomes.unknown).to.equal(1);
    // The repetitions together are the run's usage.json report.
    const total = out.files.reduce((n, f) => n + (f.value as { report: { calls: number } }).report.calls, 0);
    expect(total).to.equal(out.usage.report.calls);
  });

  it('the distribution: nearest-rank p95, the mean of the middle two as the median of an even count', () => {
    expect(distribution([5, 1, 3, 2, 4])).to.deep.equal({ n: 5, min: 1, median: 3, mean: 3, p95: 5, max: 5 });
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(distribution(twenty)).to.deep.include({ median: 10.5, p95: 19 });
  });
});

describe("context-engineering roll-up in the viewer's summary (by the layout the suite's report gives)", () => {
  it('is one row per cell beside its cases, not a heap of header fields', async () => {
    const out = await outputs();
    const v = summaryView(out.summary, out.summaryLayout);
    expect(v.arms.map((a) => a.arm)).to.deep.equal(['a / stale_evidence', 'b / stale_evidence', 'a / all repetitions', 'b / all repetitions']);
    expect(v.header.some((l) => l.path.startsWith('rollup'))).to.equal(false);
    expect(v.arms[2]!.leaves).to.deep.include({ path: 'success.rate', value: 0.5 });
  });
});

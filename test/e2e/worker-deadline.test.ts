// The worker's time limit is a hard deadline from its start (issue 16, C2): the model call in flight
// when it passes is aborted at that moment, not after the endpoint answers, recorded as an aborted
// attempt that may have reached the provider (kept in usage.json, never sent again), and the worker
// stops with `deadline`. Against a slow real endpoint: `evalog mock-server` in its own process,
// answering every request after 3 s, over loopback HTTP with the real openai client.
import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { deriveOutputs } from '../../src/projections/outputs.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { replayRun } from '../../src/harness/orchestration/replay-resume.js';
import { scriptedPlayers, type SuiteConfigBase, suiteNamed } from '../../src/app/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';
import { tempDir } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const LATENCY_MS = 3000;
const DEADLINE_MS = 400;
const RUN = 'deadline';

type Of<T extends StoredEvent['type']> = Extract<StoredEvent, { type: T }>;

describe('worker deadline against a slow endpoint (mock-server process, real HTTP)', function () {
  this.timeout(60_000);
  let server: MockServerProcess;
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let events: StoredEvent[];
  let runMs: number;

  before(async () => {
    server = await startMockServer(['--latency-ms', String(LATENCY_MS)]);
    tmp = await tempDir();
    const log = await FileEventLog.open({ root: tmp.dir });
    const defaults = smokeSuite.defaults();
    const config: SuiteConfigBase = {
      ...defaults,
      cases: [(await smokeSuite.configure(defaults).prepare()).cases[0]!.id],
      repetitions: 1,
      concurrency: 1,
      worker: { turnCap: 8, timeLimitMs: DEADLINE_MS },
      provider: { timeoutMs: 10_000, maxAttempts: 3, backoffMs: 10, maxBackoffMs: 10 },
    };
    const endpoint = { scripted: false as const, baseURL: server.url, apiKey: 'k', model: 'evalog-scripted', baseUrlEnv: 'TEST', apiKeyEnv: null };
    const suite = await smokeSuite.configure(config).prepare();
    const started = planRun(suite, endpoint);
    const t0 = performance.now();
    const out = await executeRun({ players: scriptedPlayers(), suite, log, runId: RUN, started, endpoint });
    runMs = performance.now() - t0;
    expect(out.status).to.equal('completed');
    events = [];
    for await (const e of log.read(RUN)) events.push(e);
    await log.close();
  });
  after(async () => {
    await server?.stop();
    await tmp?.cleanup();
  });

  const jobs = () => [...new Set(events.flatMap((e) => (e.jobId ? [e.jobId] : [])))];
  const of = <T extends StoredEvent['type']>(jobId: string, type: T) =>
    events.filter((e): e is Of<T> => e.jobId === jobId && e.actor.endsWith('/worker') && e.type === type);

  it('aborts each worker’s call in flight at the deadline, long before the endpoint would have answered', () => {
    expect(jobs()).to.have.length(2); // one case, both arms
    for (const jobId of jobs()) {
      // The parent's call (no deadline of its own) waited the endpoint's 3 s and was answered.
      expect(events.some((e) => e.jobId === jobId && e.type === 'ProviderCallSucceeded' && e.actor.endsWith('/parent'))).to.equal(true);
      const requested = of(jobId, 'ProviderCallRequested');
      const failed = of(jobId, 'ProviderCallFailed');
      expect(requested, jobId).to.have.length(1);
      expect(failed[0]!.data).to.include({ callId: 'worker/turn-1/attempt-1', kind: 'aborted', retryable: false, stoppedBy: 'deadline' });
      expect(failed[0]!.data.latencyMs).to.be.below(LATENCY_MS - 1000);
      // Measured apart from the attempt's own latency: the recorded monotonic readings of the job's events.
      const delegated = events.find((e) => e.jobId === jobId && e.type === 'TaskDelegated')!;
      const stopped = of(jobId, 'WorkerStopped')[0]!;
      expect(stopped.mono! - delegated.mono!).to.be.at.least(DEADLINE_MS - 50);
      expect(stopped.mono! - delegated.mono!).to.be.below(LATENCY_MS - 1000);
      expect(failed[0]!.mono! - requested[0]!.mono!).to.be.below(LATENCY_MS - 1000);
    }
  });

  it('ends each worker with a deadline stop, sends no second attempt, and the job goes on to grading', () => {
    for (const jobId of jobs()) {
      expect(of(jobId, 'WorkerStopped').map((e) => e.data)).to.deep.equal([{ reason: 'deadline', turns: 0, answer: null }]);
      expect(events.some((e) => e.jobId === jobId && e.type === 'JobGraded')).to.equal(true);
    }
    expect(events.some((e) => e.type === 'JobFailed')).to.equal(false);
    // Jobs one at a time: each the parent's 3 s and the deadline, not also a wait for the worker's reply.
    expect(runMs).to.be.below(2 * (LATENCY_MS + DEADLINE_MS) + LATENCY_MS);
  });

  it('keeps the aborted attempt in usage.json (it may have reached the provider), its usage unknown', async () => {
    const { usage, rows } = await deriveOutputs(RUN, events, suiteNamed, undefined);
    // The endpoint did receive them: two parents' requests and the two workers' aborted ones.
    expect((await server.stats()).requests).to.equal(4);
    const calls = usage.calls.filter((c) => c.call_id === 'worker/turn-1/attempt-1');
    expect(calls).to.have.length(2);
    for (const call of calls) expect(call).to.deep.include({ attribution: 'child', outcome: 'aborted', usage: null });
    for (const row of rows) expect(row).to.deep.include({ stop_reason: 'deadline' });
  });

  it('replays from the log without calling the endpoint: the recorded abort ends the call and the worker again', async () => {
    const log = await FileEventLog.open({ root: tmp.dir });
    try {
      const before = (await server.stats()).requests;
      const report = await replayRun(log, RUN, suiteNamed);
      expect(report.ok, JSON.stringify((report as { divergence?: unknown }).divergence)).to.equal(true);
      expect((await server.stats()).requests).to.equal(before);
    } finally {
      await log.close();
    }
  });
});

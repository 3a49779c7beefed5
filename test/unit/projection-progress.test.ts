import { expect } from 'chai';
import type { StoredEvent } from '../../src/events/index.js';
import { fold, progressProjection } from '../../src/projections/index.js';

const ev = (seq: number, type: string, jobId: string | undefined, data: Record<string, unknown>) =>
  ({ seq, type, ...(jobId ? { jobId } : {}), data }) as unknown as StoredEvent;
const failed = (seq: number, jobId: string, callId: string, retryAfterMs: number) =>
  ev(seq, 'ProviderCallFailed', jobId, { callId, kind: 'rate_limited', status: 429, retryAfterMs, message: '', retryable: true, latencyMs: 1 });
const requested = (seq: number, jobId: string, callId: string, retryOf: string | null) => ev(seq, 'ProviderCallRequested', jobId, { callId, retryOf });

describe('progress projection: the live display as a fold of the log', () => {
  it('counts planned, queued, running and ended jobs, calls, tokens and calls without usage', async () => {
    const events = [
      ev(1, 'RunStarted', undefined, { jobs: [{}, {}, {}] }),
      ev(2, 'JobStarted', 'a', {}),
      requested(3, 'a', 'c1', null),
      ev(4, 'ProviderCallSucceeded', 'a', { usage: { total: 30 } }),
      ev(5, 'JobStarted', 'b', {}),
      requested(6, 'b', 'c1', null),
      ev(7, 'ProviderCallSucceeded', 'b', { usage: null }),
      ev(8, 'JobSucceeded', 'a', { passed: true }),
      ev(9, 'JobFailed', 'b', { reason: 'error' }),
    ];
    expect(await fold(progressProjection(60_000), events)).to.deep.equal({
      planned: 3,
      queued: 1,
      running: 0,
      succeeded: 1,
      passed: 1,
      failed: 1,
      calls: 2,
      tokens: 30,
      callsWithoutUsage: 1,
      retryWaits: { count: 0, longestMs: 0 },
    });
  });

  it('a Retry-After wait lasts until the retry is requested or the job ends; one above the cap is not counted', async () => {
    const p = progressProjection(60_000);
    const at = (events: StoredEvent[]) => fold(p, events).then((r) => r.retryWaits);
    const base = [failed(1, 'a', 'c/attempt-1', 30_000), failed(2, 'b', 'c/attempt-1', 3_600_000), failed(3, 'c', 'c/attempt-1', 45_000)];
    expect(await at(base)).to.deep.equal({ count: 2, longestMs: 45_000 });
    expect(await at([...base, requested(4, 'a', 'c/attempt-2', 'c/attempt-1')])).to.deep.equal({ count: 1, longestMs: 45_000 });
    expect(await at([...base, ev(4, 'JobFailed', 'c', { reason: 'error' })])).to.deep.equal({ count: 1, longestMs: 30_000 });
  });

  it('a retried job (started again after it ended) counts once, by its last attempt: done never exceeds the plan', async () => {
    const events = [
      ev(1, 'RunStarted', undefined, { jobs: [{}, {}] }),
      ev(2, 'JobStarted', 'a', {}),
      ev(3, 'JobFailed', 'a', { reason: 'provider_failed' }),
      ev(4, 'JobStarted', 'b', {}),
      ev(5, 'JobSucceeded', 'b', { passed: false }),
      ev(6, 'RunCompleted', undefined, {}),
      ev(7, 'RunReopened', undefined, { jobIds: ['a', 'b'] }),
      ev(8, 'JobStarted', 'a', { attempt: 2 }),
      ev(9, 'JobStarted', 'b', { attempt: 2 }),
    ];
    const mid = await fold(progressProjection(60_000), events);
    expect([mid.queued, mid.running, mid.succeeded, mid.passed, mid.failed]).to.deep.equal([0, 2, 0, 0, 0]);
    const end = await fold(progressProjection(60_000), [
      ...events,
      ev(10, 'JobSucceeded', 'a', { passed: true }),
      ev(11, 'JobFailed', 'b', { reason: 'provider_failed' }),
    ]);
    expect([end.queued, end.running, end.succeeded, end.passed, end.failed]).to.deep.equal([0, 0, 1, 1, 1]);
  });
});

import { expect } from 'chai';
import type { DataOf, StoredEvent } from '../../src/events/index.js';
import type { CallSite, RetryPolicy } from '../../src/harness/kernel/env.js';
import { decideProvider, evolveProvider, initialProviderState, nextProviderStep, type ProviderState } from '../../src/harness/provider/logic.js';
import { decided, failedData, given, requestedData, storedEvent, succeededData } from '../support/build-events.js';

const site: CallSite = { actor: 'job/c:a:1/worker', name: 'worker/turn-2', attribution: 'child' };
const policy: RetryPolicy = { maxAttempts: 3, backoffMs: 200, maxBackoffMs: 1_000, timeoutMs: 30_000 };

const attemptId = (n: number) => `worker/turn-2/attempt-${n}`;
const requested = (n: number) =>
  storedEvent('ProviderCallRequested', requestedData(attemptId(n), { attempt: n, retryOf: n > 1 ? attemptId(n - 1) : null }), { jobId: 'c:a:1', n: 2 * n - 1 });
const failed = (n: number, o: Partial<DataOf<'ProviderCallFailed'>> = {}) =>
  storedEvent('ProviderCallFailed', failedData(attemptId(n), o), { jobId: 'c:a:1', n: 2 * n });
const succeeded = (n: number) => storedEvent('ProviderCallSucceeded', succeededData(attemptId(n)), { jobId: 'c:a:1', n: 2 * n });

const state = (events: StoredEvent[]): ProviderState => given(evolveProvider, initialProviderState, events);
const step = (events: StoredEvent[], p: RetryPolicy = policy) => nextProviderStep(state(events), site, p);

describe('provider logic: decideProvider', () => {
  it('Send records the attempt with its attribution, retry link and request', () => {
    const drafts = decideProvider({
      type: 'Send',
      site,
      callId: attemptId(2),
      attempt: 2,
      retryOf: attemptId(1),
      model: 'gpt-x',
      messages: ['a'.repeat(64)],
      tools: ['lookup'],
      params: { temperature: 0 },
    });
    expect(decided(drafts)).to.deep.equal([
      {
        type: 'ProviderCallRequested',
        data: {
          callId: attemptId(2),
          attempt: 2,
          retryOf: attemptId(1),
          attribution: 'child',
          model: 'gpt-x',
          messages: ['a'.repeat(64)],
          tools: ['lookup'],
          params: { temperature: 0 },
        },
      },
    ]);
  });

  it('Settle with a usable reply records ProviderCallSucceeded under the attempt call id', () => {
    const { callId: _ignored, ...data } = succeededData('x', { content: 'hi', usage: null });
    const drafts = decideProvider({ type: 'Settle', callId: attemptId(1), result: { ok: true, data } });
    expect(decided(drafts)).to.deep.equal([{ type: 'ProviderCallSucceeded', data: { ...data, callId: attemptId(1) } }]);
  });

  it('Settle with a failure records ProviderCallFailed with its kind and retry-after', () => {
    const { callId: _ignored, ...data } = failedData('x', { kind: 'rate_limited', status: 429, retryAfterMs: 3_000 });
    const drafts = decideProvider({ type: 'Settle', callId: attemptId(1), result: { ok: false, data } });
    expect(decided(drafts)).to.deep.equal([{ type: 'ProviderCallFailed', data: { ...data, callId: attemptId(1) } }]);
  });
});

describe('provider logic: evolveProvider', () => {
  it('counts finished attempts but not one cut short by an interrupt', () => {
    const s = state([requested(1), failed(1), requested(2), failed(2, { kind: 'aborted', retryable: true }), requested(3)]);
    expect(s).to.include({ attempts: 3, counted: 1, lastCallId: attemptId(3), outcome: null });
  });

  it('keeps the outcome of the last settled attempt', () => {
    const s = state([requested(1), failed(1), requested(2), succeeded(2)]);
    expect(s.outcome?.ok).to.equal(true);
    expect(s.outcome?.data.callId).to.equal(attemptId(2));
  });
});

describe('provider logic: nextProviderStep (retry policy)', () => {
  it('given no events, sends attempt 1 at once, named after the call site', () => {
    expect(step([])).to.deep.equal({ type: 'attempt', callId: attemptId(1), attempt: 1, retryOf: null, delayMs: 0 });
  });

  it('given a success, is done', () => {
    expect(step([requested(1), succeeded(1)])).to.deep.equal({ type: 'done' });
  });

  it('given a retryable failure, retries with the base backoff and links the failed attempt', () => {
    expect(step([requested(1), failed(1)])).to.deep.equal({ type: 'attempt', callId: attemptId(2), attempt: 2, retryOf: attemptId(1), delayMs: 200 });
  });

  it('doubles the backoff per counted failure', () => {
    expect(step([requested(1), failed(1), requested(2), failed(2)], { ...policy, maxAttempts: 5 })).to.include({ attempt: 3, delayMs: 400 });
  });

  it('caps the backoff at maxBackoffMs', () => {
    const events = [requested(1), failed(1), requested(2), failed(2), requested(3), failed(3), requested(4), failed(4)];
    expect(step(events, { ...policy, maxAttempts: 10 })).to.include({ attempt: 5, delayMs: 1_000 });
  });

  it('honours retry-after above the backoff cap', () => {
    const events = [requested(1), failed(1, { kind: 'rate_limited', status: 429, retryAfterMs: 7_500 })];
    expect(step(events)).to.include({ type: 'attempt', attempt: 2, delayMs: 7_500 });
  });

  it('waits the backoff when retry-after is shorter than it', () => {
    const events = [requested(1), failed(1, { kind: 'rate_limited', status: 429, retryAfterMs: 50 })];
    expect(step(events)).to.include({ delayMs: 200 });
  });

  it('retries an aborted attempt at once, without using the attempt budget', () => {
    const once = { ...policy, maxAttempts: 1 };
    const events = [requested(1), failed(1, { kind: 'aborted', retryable: true, retryAfterMs: 9_000 })];
    expect(step(events, once)).to.deep.equal({ type: 'attempt', callId: attemptId(2), attempt: 2, retryOf: attemptId(1), delayMs: 0 });
    // The re-sent attempt still has the whole budget: its own retryable failure ends the call only now.
    expect(step([...events, requested(2), failed(2)], once)).to.deep.equal({ type: 'done' });
    expect(step([...events, requested(2), failed(2)], { ...policy, maxAttempts: 2 })).to.include({ attempt: 3, delayMs: 200 });
  });

  it('stops at a non-retryable failure even with attempts left', () => {
    expect(step([requested(1), failed(1, { kind: 'client_error', status: 400, retryable: false })])).to.deep.equal({ type: 'done' });
  });

  it('stops after maxAttempts counted attempts', () => {
    const events = [requested(1), failed(1), requested(2), failed(2), requested(3), failed(3)];
    expect(step(events)).to.deep.equal({ type: 'done' });
    expect(step(events.slice(0, 4))).to.include({ type: 'attempt', attempt: 3 });
  });

  it('with maxAttempts 1 never retries a counted failure', () => {
    expect(step([requested(1), failed(1, { kind: 'timeout', status: null })], { ...policy, maxAttempts: 1 })).to.deep.equal({ type: 'done' });
  });
});

// The provider caller's decider, given/when/then: past attempts folded into the call's state, then
// the next command decided. "Next" asks the retry policy for the next attempt (none = no event).
import type { CallSite, RetryPolicy } from '../../src/harness/kernel/env.js';
import {
  decideProvider,
  evolveProvider,
  initialProviderState,
  nextProviderStep,
  type ProviderCommand,
  type ProviderState,
} from '../../src/harness/provider/logic.js';
import { failedData, requestedData, storedEvent, succeededData } from '../support/build-events.js';
import { deciderSpec, ev } from '../support/decider.js';

const site: CallSite = { actor: 'job/c:a:1/grader', name: 'judge-1', attribution: 'grading' };
const policy: RetryPolicy = { maxAttempts: 3, backoffMs: 100, maxBackoffMs: 1_000, timeoutMs: 1_000 };
type Command = ProviderCommand | { type: 'Next' };

const provider = deciderSpec<ProviderState, Command>({
  initialState: initialProviderState,
  evolve: evolveProvider,
  decide(cmd, state) {
    if (cmd.type !== 'Next') return decideProvider(cmd);
    const step = nextProviderStep(state, site, policy);
    if (step.type !== 'attempt') return [];
    return decideProvider({
      type: 'Send',
      site,
      callId: step.callId,
      attempt: step.attempt,
      retryOf: step.retryOf,
      model: 'judge',
      messages: [],
      tools: [],
      params: {},
    });
  },
});

const id = (n: number) => `judge-1/attempt-${n}`;
const requested = (n: number) =>
  storedEvent('ProviderCallRequested', requestedData(id(n), { attempt: n, retryOf: n > 1 ? id(n - 1) : null, attribution: 'grading' }), {
    jobId: 'c:a:1',
    n: 2 * n - 1,
  });
const failed = (n: number, o: Parameters<typeof failedData>[1] = {}) => storedEvent('ProviderCallFailed', failedData(id(n), o), { jobId: 'c:a:1', n: 2 * n });
const sent = (n: number) =>
  ev('ProviderCallRequested', {
    callId: id(n),
    attempt: n,
    retryOf: n > 1 ? id(n - 1) : null,
    attribution: 'grading',
    model: 'judge',
    messages: [],
    tools: [],
    params: {},
  });

describe('deciders: provider caller (given attempts, when Next, then the next attempt or nothing)', () => {
  it('given nothing, when Next, then the first attempt', () => {
    provider
      .given([])
      .when({ type: 'Next' })
      .then([sent(1)]);
  });

  it('given a retryable failure, when Next, then a retry of it', () => {
    provider
      .given([requested(1), failed(1)])
      .when({ type: 'Next' })
      .then([sent(2)]);
  });

  it('given a success, when Next, then nothing: a completed call is never sent again', () => {
    provider
      .given([requested(1), storedEvent('ProviderCallSucceeded', succeededData(id(1)), { jobId: 'c:a:1', n: 2 })])
      .when({ type: 'Next' })
      .then([]);
  });

  it('given a non-retryable failure, when Next, then nothing', () => {
    provider
      .given([requested(1), failed(1, { kind: 'client_error', status: 400, retryable: false })])
      .when({ type: 'Next' })
      .then([]);
  });

  it('given maxAttempts counted failures, when Next, then nothing', () => {
    provider
      .given([requested(1), failed(1), requested(2), failed(2), requested(3), failed(3)])
      .when({ type: 'Next' })
      .then([]);
  });

  it('given attempts cut short by interrupts, when Next, then another attempt: aborted ones use none of the budget', () => {
    const aborted = (n: number) => failed(n, { kind: 'aborted', status: null, retryable: true });
    provider
      .given([requested(1), aborted(1), requested(2), aborted(2), requested(3), aborted(3)])
      .when({ type: 'Next' })
      .then([sent(4)]);
  });

  it('given an attempt in flight, when it settles, then its outcome event', () => {
    const data = { content: '{"verdict":"pass","reason":"ok"}', toolCalls: [], finishReason: 'stop', usage: null, latencyMs: 4 };
    provider
      .given([requested(1)])
      .when({ type: 'Settle', callId: id(1), result: { ok: true, data } })
      .then([ev('ProviderCallSucceeded', { callId: id(1), ...data })]);
  });
});

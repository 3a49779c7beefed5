import { expect } from 'chai';
import type { DataOf, EventType, Injection, SessionSettings, StoredEvent, ToolCallRequest } from 'evalog';
// The session decider and its logic are the engine's own, with no public counterpart: this file
// tests how the engine runs this suite's sessions (budgets, queries, injections).
import { decideSession, evolveSession, initialSessionState, nextSessionStep, type SessionState } from '../../../../src/harness/session/index.js';
import { queryAllowance, toolCallName } from '../../../../src/harness/session/logic.js';
import { decided, given, requestedData, storedEvent, succeededData, T0 } from '../../../../test/support/build-events.js';

// The environment here is just the list of event types it saw, to show every event reaches it.
const JOB = 'case:cell:1';
const start = initialSessionState<string[]>(
  [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'task' },
  ],
  [],
  [],
);
const fold = evolveSession<string[]>((env, e) => [...env, e.type]);
let n = 0;
const ev = <T extends EventType>(afterMs: number, type: T, data: DataOf<T>): StoredEvent =>
  storedEvent(type, data, { jobId: JOB, n: ++n, seq: 100 + n, at: T0 + afterMs });
const state = (...events: StoredEvent[]): SessionState<string[]> => given(fold, start, events);
const settings = (budget: Partial<SessionSettings['budget']> = {}, maxAttempts = 2): SessionSettings => ({
  model: 'm',
  sampling: { temperature: 0, maxTokens: 100 },
  provider: { timeoutMs: 1000, maxAttempts, backoffMs: 0, maxBackoffMs: 0 },
  budget: { mainCalls: 12, modelCalls: 16, deadlineMs: 120_000, ...budget },
  queries: true,
});
const call = (id: string, name = 'read_source'): ToolCallRequest => ({ id, name, arguments: '{}' });
const started = () => ev(0, 'JobStarted', { caseId: 'case', arm: 'cell', repetition: 1, seed: 1 });
const main = (k: number, at: number) => ev(at, 'ProviderCallRequested', requestedData(`worker/turn-${k}/attempt-1`, { attribution: 'main' }));
const reply = (k: number, at: number, calls: ToolCallRequest[]) =>
  ev(at, 'ProviderCallSucceeded', succeededData(`worker/turn-${k}/attempt-1`, { content: null, toolCalls: calls, finishReason: 'tool_calls' }));
const tool = (at: number, c: ToolCallRequest, i: number) =>
  ev(at, 'ToolCalled', { callId: `worker/turn-1/tool-${i}`, toolCallId: c.id, name: c.name, arguments: '{}', result: 'ok', isError: false });
const injected = (at: number, kind: DataOf<'FaultInjected'>['kind'], notice: string | null): StoredEvent =>
  ev(at, 'FaultInjected', { injectionId: kind, kind, target: 'worker', detail: 'd', notice, mutation: null });
const inj = (kind: Injection['kind']): Injection => ({ id: kind, kind, target: 'worker', detail: 'd', notice: 'n', mutation: null, keepChars: null });

describe('session logic: decideSession', () => {
  it('RecordTool records the call, then one EnvironmentChanged per side effect, named by the call', () => {
    const effects = [{ effect: 'apply_migration:M1', target: 'migrations', value: 'M1', terminal: false }];
    expect(
      decided(
        decideSession({ type: 'RecordTool', callId: 'worker/turn-2/tool-0', call: call('c1', 'apply_migration'), result: 'applied', isError: false, effects }),
      ),
    ).to.deep.equal([
      {
        type: 'ToolCalled',
        data: { callId: 'worker/turn-2/tool-0', toolCallId: 'c1', name: 'apply_migration', arguments: '{}', result: 'applied', isError: false },
      },
      {
        type: 'EnvironmentChanged',
        data: { callId: 'worker/turn-2/tool-0', effect: 'apply_migration:M1', target: 'migrations', value: 'M1', terminal: false },
      },
    ]);
  });

  it('Stop with a budget records BudgetExhausted before WorkerStopped; without one, WorkerStopped only', () => {
    const budget = { budget: 'main_calls' as const, limit: 2, used: 2 };
    expect(decided(decideSession({ type: 'Stop', reason: 'turn_cap', budget, turns: 2, answer: null })).map((d) => d.type)).to.deep.equal([
      'BudgetExhausted',
      'WorkerStopped',
    ]);
    expect(decided(decideSession({ type: 'Stop', reason: 'answered', budget: null, turns: 3, answer: 'x' })).map((d) => d.type)).to.deep.equal([
      'WorkerStopped',
    ]);
  });

  it('Inject records the injection as the host planned it', () => {
    expect(decided(decideSession({ type: 'Inject', injection: inj('context_switch') }))).to.deep.equal([
      { type: 'FaultInjected', data: { injectionId: 'context_switch', kind: 'context_switch', target: 'worker', detail: 'd', notice: 'n', mutation: null } },
    ]);
  });
});

describe('session logic: evolveSession and nextSessionStep', () => {
  beforeEach(() => (n = 0));

  it('given JobStarted, the deadline clock and the restart read start there, and the first step is a main call', () => {
    const s = state(started());
    expect([s.startedAtMs, s.fromSeq, s.environment]).to.deep.equal([T0, 101, ['JobStarted']]);
    expect(nextSessionStep(s, settings(), [])).to.deep.equal({ type: 'call', maxAttempts: 2 });
  });

  it('given a main reply with tools, runs them; a query reply is no turn, and each query tool call is one batch', () => {
    const s = state(started(), main(1, 10), reply(1, 20, [call('a'), call('b')]));
    expect(nextSessionStep(s, settings(), [])).to.deep.equal({ type: 'tools' });
    expect(toolCallName(s, call('b'))).to.equal('worker/turn-1/tool-1');
    const q = (tool: number, i: number) =>
      ev(30, 'ProviderCallRequested', requestedData(`worker/turn-1/tool-${tool}/query-${i}/attempt-1`, { attribution: 'query' }));
    const s2 = given(fold, s, [q(0, 0), ev(31, 'ProviderCallSucceeded', succeededData('worker/turn-1/tool-0/query-0/attempt-1')), q(0, 1), q(1, 0)]);
    expect([s2.turns, s2.messages.length, s2.queryBatches, s2.modelCalls, s2.mainCalls]).to.deep.equal([1, 3, 2, 4, 1]);
  });

  it('a host notice that arrives mid-batch waits until every tool call of the batch is answered', () => {
    const [a, b] = [call('a'), call('b')];
    const s = state(started(), main(1, 10), reply(1, 20, [a, b]), tool(30, a, 0), injected(31, 'worker_restart', 'restarted'));
    expect(s.messages.at(-1)).to.deep.include({ role: 'tool' });
    const s2 = fold(s, tool(40, b, 1));
    expect(s2.messages.slice(-2).map((m) => m.role)).to.deep.equal(['tool', 'user']);
    expect(s2.messages.at(-1)!.content).to.equal('[host] restarted');
  });

  it('a context switch replaces the conversation with the start messages and the notes', () => {
    const a = call('a');
    const s = state(started(), main(1, 10), reply(1, 20, [a]), tool(30, a, 0), injected(40, 'context_switch', 'notes: stale'));
    expect(s.messages).to.deep.equal([...start.messages, { role: 'user', content: '[host] notes: stale' }]);
    expect(s.fired).to.deep.equal(['context_switch']);
  });

  it('injections due between batches come before the next call; a submission ends the loop', () => {
    const s = state(started());
    expect(nextSessionStep(s, settings(), [inj('context_switch')])).to.deep.include({ type: 'inject' });
    const done = fold(s, ev(5, 'EnvironmentChanged', { callId: 't', effect: 'submit', target: 'submission', value: '{}', terminal: true }));
    expect(nextSessionStep(done, settings(), [])).to.deep.equal({ type: 'stop', reason: 'answered', budget: null });
  });

  it('each budget stops the loop with its own record: main calls, model calls, deadline', () => {
    const two = state(started(), main(1, 10), reply(1, 20, []));
    const replied = { ...two, answered: false };
    expect(nextSessionStep(replied, settings({ mainCalls: 1 }), [])).to.deep.equal({
      type: 'stop',
      reason: 'turn_cap',
      budget: { budget: 'main_calls', limit: 1, used: 1 },
    });
    expect(nextSessionStep(replied, settings({ modelCalls: 1 }), [])).to.deep.include({ budget: { budget: 'model_calls', limit: 1, used: 1 } });
    expect(nextSessionStep(replied, settings({ deadlineMs: 20 }), [])).to.deep.equal({
      type: 'stop',
      reason: 'time_limit',
      budget: { budget: 'deadline', limit: 20, used: 20 },
    });
  });

  it('retries may not outrun the budget: attempts are capped by what is left of either', () => {
    const s = { ...state(started(), main(1, 10), reply(1, 20, [])), answered: false };
    expect(nextSessionStep(s, settings({ mainCalls: 2 }, 3), [])).to.deep.equal({ type: 'call', maxAttempts: 1 });
    expect(queryAllowance(s, settings({ modelCalls: 3 }, 5))).to.equal(2);
    expect(queryAllowance(s, settings({ modelCalls: 1 }))).to.equal(0);
  });

  it('a failed main call with no retry left stops the loop as provider_failed', () => {
    const s = state(
      started(),
      main(1, 10),
      ev(20, 'ProviderCallFailed', {
        callId: 'worker/turn-1/attempt-1',
        kind: 'timeout',
        status: null,
        retryAfterMs: null,
        message: 't',
        retryable: true,
        latencyMs: 1,
      }),
    );
    expect(nextSessionStep(s, settings(), [])).to.deep.equal({ type: 'stop', reason: 'provider_failed', budget: null });
  });
});

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { EventType, DataOf, StoredEvent, ToolCallRequest } from '../../src/events/index.js';
import { decideWorker, evolveWorker, initialWorkerState, nextWorkerStep, type WorkerState } from '../../src/harness/worker/logic.js';
import type { ChatMessage } from '../../src/providers/chat.js';
import type { WorkerLimits } from '../../src/harness/suite/types.js';
import { decided, failedData, given, storedEvent, succeededData, T0 } from '../support/build-events.js';

const JOB = 'case_a:arm_x:1';
const limits: WorkerLimits = { turnCap: 3, timeLimitMs: 10_000 };
const start: ChatMessage[] = [
  { role: 'system', content: 'you are a worker' },
  { role: 'user', content: 'brief' },
];
const initial = () => initialWorkerState(start, [], T0);

let n = 0;
const ev = <T extends EventType>(afterMs: number, type: T, data: DataOf<T>): StoredEvent =>
  storedEvent(type, data, { jobId: JOB, n: ++n, at: T0 + afterMs, actor: `job/${JOB}/worker` });
const call = (id: string, name = 'lookup', args = '{"item":"apple"}'): ToolCallRequest => ({ id, name, arguments: args });
const turn = (afterMs: number, k: number, toolCalls: ToolCallRequest[], content: string | null = null) =>
  ev(
    afterMs,
    'ProviderCallSucceeded',
    succeededData(`worker/turn-${k}/attempt-1`, { content, toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop' }),
  );
const tool = (afterMs: number, k: number, c: ToolCallRequest, result = 'PRICE apple=1.25') =>
  ev(afterMs, 'ToolCalled', { callId: `worker/turn-${k}/tool-0`, toolCallId: c.id, name: c.name, arguments: c.arguments, result, isError: false });

const state = (events: StoredEvent[]): WorkerState => given(evolveWorker, initial(), events);
const step = (events: StoredEvent[]) => nextWorkerStep(state(events), limits);

describe('worker logic: decideWorker', () => {
  it('RecordTool without an artifact records only ToolCalled, with the raw arguments kept verbatim', () => {
    const c = call('call_1', 'lookup', '{ "item" : "pear" }');
    const drafts = decideWorker({
      type: 'RecordTool',
      callId: 'worker/turn-1/tool-0',
      call: c,
      outcome: { result: 'PRICE pear=2.10', isError: false },
      revision: 1,
    });
    expect(decided(drafts)).to.deep.equal([
      {
        type: 'ToolCalled',
        data: {
          callId: 'worker/turn-1/tool-0',
          toolCallId: 'call_1',
          name: 'lookup',
          arguments: '{ "item" : "pear" }',
          result: 'PRICE pear=2.10',
          isError: false,
        },
      },
    ]);
  });

  it('RecordTool whose tool saved an artifact also records ArtifactRevised with its sha256', () => {
    const c = call('call_9', 'write_answer', '{"value":"12.50"}');
    const drafts = decideWorker({
      type: 'RecordTool',
      callId: 'worker/turn-4/tool-0',
      call: c,
      outcome: { result: 'saved', isError: false, artifact: '12.50' },
      revision: 2,
    });
    expect(drafts.map((d) => d.type)).to.deep.equal(['ToolCalled', 'ArtifactRevised']);
    expect(drafts[1]!.data).to.deep.equal({ revision: 2, content: '12.50', sha256: createHash('sha256').update('12.50').digest('hex') });
  });

  it('RecordTool of a failed tool records isError', () => {
    const drafts = decideWorker({ type: 'RecordTool', callId: 't', call: call('c'), outcome: { result: 'error: unknown item', isError: true }, revision: 1 });
    expect(drafts).to.have.length(1);
    expect(drafts[0]!.data).to.include({ isError: true, result: 'error: unknown item' });
  });

  it('Stop records WorkerStopped with reason, turns and answer', () => {
    expect(decided(decideWorker({ type: 'Stop', reason: 'turn_cap', turns: 3, answer: null }))).to.deep.equal([
      { type: 'WorkerStopped', data: { reason: 'turn_cap', turns: 3, answer: null } },
    ]);
  });
});

describe('worker logic: evolveWorker and nextWorkerStep', () => {
  beforeEach(() => {
    n = 0;
  });

  it('given nothing yet, calls the model', () => {
    expect(step([])).to.deep.equal({ type: 'call' });
  });

  it('given a reply with tool calls, runs the tools and keeps the reply in the conversation', () => {
    const calls = [call('call_1'), call('call_2', 'lookup', '{"item":"pear"}')];
    const s = state([turn(100, 1, calls, 'looking up')]);
    expect(nextWorkerStep(s, limits)).to.deep.equal({ type: 'tools' });
    expect(s.turns).to.equal(1);
    expect(s.pending.map((p) => p.id)).to.deep.equal(['call_1', 'call_2']);
    expect(s.messages.at(-1)).to.deep.equal({
      role: 'assistant',
      content: 'looking up',
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"item":"apple"}' } },
        { id: 'call_2', type: 'function', function: { name: 'lookup', arguments: '{"item":"pear"}' } },
      ],
    });
  });

  it('matches tool results by tool call id, whatever order they arrive in', () => {
    const calls = [call('call_1'), call('call_2')];
    const partly = state([turn(100, 1, calls), tool(200, 1, calls[1]!, 'second')]);
    expect(partly.pending.map((p) => p.id)).to.deep.equal(['call_1']);
    expect(nextWorkerStep(partly, limits)).to.deep.equal({ type: 'tools' });
    const all = given(evolveWorker, partly, [tool(300, 1, calls[0]!, 'first')]);
    expect(all.messages.slice(-2)).to.have.deep.members([
      { role: 'tool', tool_call_id: 'call_1', content: 'first' },
      { role: 'tool', tool_call_id: 'call_2', content: 'second' },
    ]);
    expect(nextWorkerStep(all, limits)).to.deep.equal({ type: 'call' });
  });

  it('given a reply without tool calls, stops as answered with that text', () => {
    const c = call('call_1');
    const s = state([turn(100, 1, [c]), tool(200, 1, c), turn(300, 2, [], 'DONE 3.75')]);
    expect(nextWorkerStep(s, limits)).to.deep.equal({ type: 'stop', reason: 'answered' });
    expect(s.answer).to.equal('DONE 3.75');
    expect(s.turns).to.equal(2);
  });

  it("stops at the turn cap once the last turn's tools have run", () => {
    const c = [call('c1'), call('c2'), call('c3')];
    const twoTurns = [turn(10, 1, [c[0]!]), tool(20, 1, c[0]!), turn(30, 2, [c[1]!]), tool(40, 2, c[1]!)];
    expect(step(twoTurns)).to.deep.equal({ type: 'call' });
    const third = [...twoTurns, turn(50, 3, [c[2]!])];
    expect(step(third)).to.deep.equal({ type: 'tools' });
    expect(step([...third, tool(60, 3, c[2]!)])).to.deep.equal({ type: 'stop', reason: 'turn_cap' });
  });

  it("leaves the deadline to the machine's timer: recorded times alone never stop the worker (a resumed job's downtime does not count)", () => {
    const c = call('c1');
    expect(step([turn(100, 1, [c]), tool(10 * limits.timeLimitMs, 1, c)])).to.deep.equal({ type: 'call' });
    expect(step([turn(10 * limits.timeLimitMs, 1, [c])])).to.deep.equal({ type: 'tools' });
  });

  it('given a provider call that finally failed, stops with provider_failed', () => {
    const s = state([ev(100, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1', { retryable: false, kind: 'client_error', status: 400 }))]);
    expect(nextWorkerStep(s, limits)).to.deep.equal({ type: 'stop', reason: 'provider_failed' });
    expect(s.lastFailure?.kind).to.equal('client_error');
  });

  it('does not stop for a failed attempt that a retry recovered', () => {
    const events = [ev(100, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1')), turn(200, 1, [call('c1')])];
    expect(step(events)).to.deep.equal({ type: 'tools' });
  });

  it('keeps the latest artifact revision', () => {
    const s = state([
      ev(10, 'ArtifactRevised', { revision: 1, content: '1.00', sha256: 'a'.repeat(64) }),
      ev(20, 'ArtifactRevised', { revision: 2, content: '2.00', sha256: 'b'.repeat(64) }),
    ]);
    expect(s).to.include({ artifact: '2.00', revisions: 2 });
  });

  it('is done once WorkerStopped is recorded', () => {
    const s = state([turn(100, 1, [], 'DONE'), ev(200, 'WorkerStopped', { reason: 'answered', turns: 1, answer: 'DONE' })]);
    expect(nextWorkerStep(s, limits)).to.deep.equal({ type: 'done' });
  });
});

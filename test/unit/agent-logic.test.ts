// The pure part of an external-agent job: the fold of its events, the budget, the names of its
// calls, how an agent's request is compared with its record (the field a divergence names), and
// the stop reason concluded from how the process ended.
import { expect } from 'chai';
import type { AgentStopReason, StoredEvent } from '../../src/events/index.js';
import {
  agentCallName,
  agentLimitsOf,
  budgetBreach,
  evolveAgentJob,
  failsJob,
  initialAgentJobState,
  matchModelRequest,
  matchToolCall,
  stopReasonOf,
  type AgentJobState,
  type ModelRequestFacts,
  type ProcessEnd,
} from '../../src/harness/external/logic.js';
import { failedData, given, requestedData, storedEvent, succeededData } from '../support/build-events.js';

const JOB = 'c1:a:1';
const ev = (e: Parameters<typeof storedEvent>) => storedEvent(...e);
const fold = (events: StoredEvent[]) => given(evolveAgentJob, initialAgentJobState, events);
/** A blob ref (messages are recorded by hash). */
const ref = (c: string) => c.repeat(64);
const [m1, m2, m3, m4, mX] = ['1', '2', '3', '4', 'f'].map(ref) as [string, string, string, string, string];
const state = (o: Partial<AgentJobState>): AgentJobState => ({ ...initialAgentJobState, ...o });

describe('agent job logic: the fold', () => {
  it('counts the agent requests (not retries), the reported tokens, the tool calls and the artifact', () => {
    const s = fold([
      ev(['ProviderCallRequested', requestedData('agent/call-1/attempt-1'), { jobId: JOB }]),
      ev(['ProviderCallFailed', failedData('agent/call-1/attempt-1'), { jobId: JOB }]),
      ev(['ProviderCallRequested', requestedData('agent/call-1/attempt-2', { attempt: 2, retryOf: 'agent/call-1/attempt-1' }), { jobId: JOB }]),
      ev(['ProviderCallSucceeded', succeededData('agent/call-1/attempt-2', { usage: { prompt: 7, completion: 3, total: 10 } }), { jobId: JOB }]),
      ev(['ProviderCallRequested', requestedData('agent/call-2/attempt-1'), { jobId: JOB }]),
      // A call that reported no usage adds nothing (never a guessed 0 that reads as measured).
      ev(['ProviderCallSucceeded', succeededData('agent/call-2/attempt-1', { usage: null }), { jobId: JOB }]),
      ev(['ToolCalled', { callId: 'agent/tool-1', toolCallId: 'mcp-1', name: 'save', arguments: '{}', result: 'ok', isError: false }, { jobId: JOB }]),
      ev(['ArtifactRevised', { revision: 1, content: 'one', sha256: 'a'.repeat(64) }, { jobId: JOB }]),
      ev(['ArtifactRevised', { revision: 2, content: 'two', sha256: 'b'.repeat(64) }, { jobId: JOB }]),
    ]);
    expect(s).to.deep.equal({ ...initialAgentJobState, modelCalls: 2, tokens: 10, toolCalls: 1, artifact: 'two', firstArtifact: 'one', revisions: 2 });
  });

  it('keeps the budget that ran out and counts divergences as rounds', () => {
    const s = fold([
      ev(['AgentDiverged', { index: 2, kind: 'model', field: 'messages[1]', detail: 'd' }, { jobId: JOB }]),
      ev(['BudgetExhausted', { budget: 'tokens', limit: 10, used: 12 }, { jobId: JOB }]),
      ev(['AgentDiverged', { index: 4, kind: 'tool', field: 'arguments', detail: 'd' }, { jobId: JOB }]),
    ]);
    expect(s).to.include({ budget: 'tokens', epoch: 2 });
  });
});

describe('agent job logic: call names and budgets', () => {
  it('names calls by kind and number, and after a divergence in its round', () => {
    expect(agentCallName('call', 1, 0)).to.equal('agent/call-1');
    expect(agentCallName('tool', 3, 0)).to.equal('agent/tool-3');
    expect(agentCallName('call', 2, 1)).to.equal('agent/r1/call-2');
    expect(agentCallName('tool', 1, 2)).to.equal('agent/r2/tool-1');
  });

  it('lets a request go below the limits and names the budget it would break otherwise', () => {
    const limits = { modelCalls: 3, tokens: 100, timeLimitMs: 1_000 };
    expect(budgetBreach(state({ modelCalls: 2, tokens: 99 }), limits)).to.equal(null);
    expect(budgetBreach(state({ modelCalls: 3, tokens: 0 }), limits)).to.deep.equal({ budget: 'model_calls', limit: 3, used: 3 });
    expect(budgetBreach(state({ modelCalls: 1, tokens: 100 }), limits)).to.deep.equal({ budget: 'tokens', limit: 100, used: 100 });
    // Both used up: the call budget is named.
    expect(budgetBreach(state({ modelCalls: 3, tokens: 500 }), limits)?.budget).to.equal('model_calls');
    // No token budget: any number of tokens goes.
    expect(budgetBreach(state({ modelCalls: 1, tokens: 1e9 }), { ...limits, tokens: null })).to.equal(null);
  });

  it("takes an agent's own limits over the defaults, and the worker's time limit when it names none", () => {
    expect(agentLimitsOf(undefined, { timeLimitMs: 9_000 })).to.deep.equal({ modelCalls: 50, tokens: null, timeLimitMs: 9_000 });
    expect(agentLimitsOf({ tokens: 400 }, { timeLimitMs: 9_000 })).to.deep.equal({ modelCalls: 50, tokens: 400, timeLimitMs: 9_000 });
    expect(agentLimitsOf({ modelCalls: 2, timeLimitMs: 1_500 }, { timeLimitMs: 9_000 })).to.deep.equal({ modelCalls: 2, tokens: null, timeLimitMs: 1_500 });
  });
});

describe('agent job logic: matching a request with its record', () => {
  const facts: ModelRequestFacts = {
    callId: 'agent/call-2/attempt-1',
    attribution: 'main',
    model: 'run-model',
    messages: [m1, m2, m3],
    tools: ['lookup', 'save'],
    params: { temperature: 0.3, tool_choice: 'auto' },
  };
  const recorded = (o: Parameters<typeof requestedData>[1] = {}) =>
    ev([
      'ProviderCallRequested',
      requestedData(facts.callId, {
        attribution: 'main',
        model: 'run-model',
        messages: [m1, m2, m3],
        tools: ['lookup', 'save'],
        params: { tool_choice: 'auto', temperature: 0.3 },
        ...o,
      }),
      { jobId: JOB },
    ]);
  const field = (r: StoredEvent, f: ModelRequestFacts = facts) => matchModelRequest(f, r)?.field ?? null;

  it('holds the same request (params in any key order) as recorded', () => {
    expect(matchModelRequest(facts, recorded())).to.equal(null);
  });

  it('names the first differing field, in the order a reader looks for it', () => {
    expect(
      field(ev(['ToolCalled', { callId: 'agent/tool-1', toolCallId: 'mcp-1', name: 'save', arguments: '{}', result: 'ok', isError: false }, { jobId: JOB }])),
    ).to.equal('kind');
    expect(field(recorded({ callId: 'agent/r1/call-2/attempt-1' }))).to.equal('callId');
    expect(field(recorded({ messages: [m1, mX, m3], tools: ['other'] }))).to.equal('messages[1]');
    // One message more or less is a difference at the first position one side lacks.
    expect(field(recorded({ messages: [m1, m2] }))).to.equal('messages[2]');
    expect(field(recorded({ messages: [m1, m2, m3, m4] }))).to.equal('messages[3]');
    expect(field(recorded({ tools: ['save', 'lookup'], attribution: 'child' }))).to.equal('tools');
    expect(field(recorded({ attribution: 'query', model: 'other' }))).to.equal('attribution');
    expect(field(recorded({ model: 'other-model' }))).to.equal('model');
    expect(field(recorded({ params: { temperature: 0.3, tool_choice: 'none' } }))).to.equal('params.tool_choice');
    // A parameter only one side has is a difference too.
    expect(field(recorded(), { ...facts, params: { ...facts.params, x: 1 } })).to.equal('params.x');
  });

  it('says what differs in the detail', () => {
    expect(matchModelRequest(facts, recorded({ messages: [m1, mX, m3] }))?.detail).to.equal('message 2 differs from the recorded one');
    expect(matchModelRequest(facts, recorded({ params: { temperature: 1, tool_choice: 'auto' } }))?.detail).to.equal('recorded 1, now 0.3');
  });

  it('compares a tool call by kind, callId, tool and arguments', () => {
    const called = ev([
      'ToolCalled',
      { callId: 'agent/tool-1', toolCallId: 'mcp-1', name: 'save', arguments: '{"text":"v1"}', result: 'ok', isError: false },
      { jobId: JOB },
    ]);
    expect(matchToolCall('agent/tool-1', 'save', '{"text":"v1"}', called)).to.equal(null);
    expect(matchToolCall('agent/tool-1', 'save', '{"text":"v1"}', recorded())?.field).to.equal('kind');
    expect(matchToolCall('agent/r1/tool-1', 'save', '{"text":"v1"}', called)?.field).to.equal('callId');
    expect(matchToolCall('agent/tool-1', 'lookup', '{"text":"v2"}', called)?.field).to.equal('tool');
    expect(matchToolCall('agent/tool-1', 'save', '{"text":"v2"}', called)).to.deep.equal({
      field: 'arguments',
      detail: 'recorded {"text":"v1"}, now {"text":"v2"}',
    });
  });
});

describe('agent job logic: how the job concludes', () => {
  const end = (o: Partial<ProcessEnd>): ProcessEnd => ({ code: 0, signal: null, ended: 'exited', ...o });
  const called = state({ modelCalls: 1 });
  const spent = state({ modelCalls: 2, budget: 'model_calls' });

  // Each row is one the rule below it would conclude differently.
  const rows: [string, ProcessEnd, AgentJobState, AgentStopReason][] = [
    ['an interrupt, whatever else happened', end({ ended: 'aborted', code: null, signal: 'SIGTERM' }), spent, 'aborted'],
    ['the time limit, though the kill was a signal and a budget ran out', end({ ended: 'time_limit', code: null, signal: 'SIGKILL' }), spent, 'time_limit'],
    ['a spent budget over a signal', end({ code: null, signal: 'SIGTERM' }), spent, 'budget'],
    ['a spent budget over a non-zero exit', end({ code: 1 }), spent, 'budget'],
    ['a signal not sent by evalog', end({ code: null, signal: 'SIGSEGV' }), called, 'signalled'],
    ['a non-zero exit', end({ code: 3 }), called, 'exited_nonzero'],
    ['a non-zero exit without model calls', end({ code: 3 }), initialAgentJobState, 'exited_nonzero'],
    ['exit 0 without a model call', end({}), initialAgentJobState, 'no_model_calls'],
    ['exit 0 after a model call', end({}), called, 'answered'],
  ];
  for (const [what, e, s, reason] of rows) {
    it(`stops on ${reason}: ${what}`, () => {
      expect(stopReasonOf(e, s)).to.equal(reason);
    });
  }

  it('fails the job only for an agent that crashed (non-zero exit, signal); every other ending is graded', () => {
    const all: AgentStopReason[] = ['answered', 'no_model_calls', 'exited_nonzero', 'signalled', 'time_limit', 'budget', 'aborted'];
    expect(all.filter(failsJob)).to.deep.equal(['exited_nonzero', 'signalled']);
  });
});

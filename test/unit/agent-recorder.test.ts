// The job side of an external agent: what the proxy and MCP handlers record, and how a resumed or
// replayed job answers the agent from its record. A real Journal on a MemoryEventLog; the model is a
// scripted ModelCaller that counts its calls (the HTTP path is the e2e tests').
import { expect } from 'chai';
import { steppingClock } from '../../src/core/clock.js';
import { eventId, type StoredEvent } from '../../src/events/index.js';
import { DeterminismViolation } from '../../src/harness/kernel/errors.js';
import { AgentDivergedError, AgentRecorder } from '../../src/harness/external/recorder.js';
import type { AgentLimits, AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';
import { draft, Journal } from '../../src/harness/kernel/journal.js';
import { jobJournal, type ProviderPort } from '../../src/harness/kernel/ports.js';
import { messageBlob } from '../../src/harness/provider/index.js';
import type { ExternalAgentHooks } from '../../src/harness/suite/define.js';
import { MemoryEventLog, MemoryStore } from '../../src/log/memory/index.js';
import type { AttemptResult, CallOptions, ModelCaller } from '../../src/providers/caller.js';
import type { ChatMessage, ChatRequest, ToolSpec } from '../../src/providers/chat.js';

const RUN = 'run-rec';
const JOB = 'c1:a:1';
const MODEL = 'run-model';
const T0 = Date.parse('2025-06-01T09:00:00.000Z');
const TOOLS: ToolSpec[] = [
  { name: 'lookup', description: 'Looks a word up.', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  { name: 'save', description: 'Saves the draft.', parameters: { type: 'object', properties: { text: { type: 'string' } } } },
];
const LIMITS: AgentLimits = { modelCalls: 50, tokens: null, timeLimitMs: 60_000 };
const PARAMS = { temperature: 0.3, max_tokens: 77, tool_choice: 'auto' };

/** A model that answers from a script (by call number, from 1) and keeps every request it was sent. */
class ScriptedCaller implements ModelCaller {
  readonly seen: ChatRequest[] = [];
  readonly keys: (string | undefined)[] = [];
  gate: Promise<void> | null = null;
  constructor(private readonly script: (n: number) => AttemptResult = answer) {}
  async call(request: ChatRequest, options: CallOptions): Promise<AttemptResult> {
    this.seen.push(request);
    this.keys.push(options.callKey);
    if (this.gate) await this.gate;
    return this.script(this.seen.length);
  }
}

function answer(n: number, over: { responseModel?: string } = {}): AttemptResult {
  return {
    ok: true,
    data: {
      ...over,
      content: `answer ${n}`,
      toolCalls: n === 1 ? [{ id: 'tc-1', name: 'lookup', arguments: '{"q":"fig"}' }] : [],
      finishReason: n === 1 ? 'tool_calls' : 'stop',
      usage: { prompt: 10, completion: 5, total: 15 },
      latencyMs: 4,
    },
  };
}

const failure = (kind: 'client_error' | 'server_error', retryable: boolean): AttemptResult => ({
  ok: false,
  data: { kind, status: kind === 'client_error' ? 400 : 500, retryAfterMs: null, message: `upstream said ${kind}`, retryable, latencyMs: 3 },
});

/** Suite hooks whose runTool counts its runs; `save` saves its `text` argument as the artifact. */
function countingHooks(tag = 'first') {
  const runs: { name: string; args: string; at: { artifact: string | null; revision: number } }[] = [];
  const hooks: ExternalAgentHooks = {
    name: 'agent',
    spec: { command: ['node', 'agent.mjs'], cwd: '/nowhere', env: [] },
    arm: 'a',
    task: () => ({ messages: [], tools: TOOLS }),
    runTool: (name, args, at) => {
      runs.push({ name, args, at });
      if (name !== 'save') return { result: `${tag}: looked up ${args}`, isError: false };
      const text = (JSON.parse(args) as { text: string }).text;
      return { result: `${tag}: saved`, isError: false, artifact: text };
    },
  };
  return { hooks, runs };
}

function provider(caller: ModelCaller): ProviderPort {
  return {
    caller,
    model: MODEL,
    sampling: { temperature: 0, maxTokens: 64 },
    seed: 2,
    policy: { maxAttempts: 3, backoffMs: 0, maxBackoffMs: 0, timeoutMs: 1_000 },
    sleep: async () => {},
    signal: new AbortController().signal,
  };
}

/** One job's recorder on `journal`, with its own caller and hooks, and the errors that ended it. */
function recorderOn(journal: Journal, o: { script?: (n: number) => AttemptResult; limits?: AgentLimits; tag?: string } = {}) {
  const caller = new ScriptedCaller(o.script);
  const { hooks, runs } = countingHooks(o.tag);
  const fatal: unknown[] = [];
  const job = jobJournal(journal, JOB);
  const recorder = new AgentRecorder({
    journal: job,
    provider: provider(caller),
    hooks,
    tools: TOOLS,
    limits: o.limits ?? LIMITS,
    onFatal: (err) => fatal.push(err),
  });
  return { recorder, caller, runs, fatal, job };
}

const liveJournal = (log: MemoryEventLog) => Journal.live(log, RUN, { clock: steppingClock(T0, 1_000) });

async function eventsOf(log: MemoryEventLog): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(RUN)) out.push(e);
  return out;
}

/** Recorded events by scope, as replay-resume builds them from the log. */
async function byScope(log: MemoryEventLog): Promise<Map<string, StoredEvent[]>> {
  const m = new Map<string, StoredEvent[]>();
  for (const e of await eventsOf(log)) m.set(e.jobId ?? '', [...(m.get(e.jobId ?? '') ?? []), e]);
  return m;
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const request = (messages: ChatMessage[], over: Partial<AgentModelRequest> = {}): AgentModelRequest => ({
  attribution: 'main',
  messages,
  tools: TOOLS,
  params: PARAMS,
  stream: false,
  includeUsage: false,
  ...over,
});

// The agent's conversation: two model requests (the second carries the first's tool result), then a save.
const M1 = [user('price the order')];
const M2 = [
  ...M1,
  {
    role: 'assistant' as const,
    content: 'answer 1',
    tool_calls: [{ id: 'tc-1', type: 'function' as const, function: { name: 'lookup', arguments: '{"q":"fig"}' } }],
  },
  { role: 'tool' as const, tool_call_id: 'tc-1', content: 'fig: 3' },
];
const M3 = [...M2, { role: 'assistant' as const, content: 'answer 2' }, user('go on')];

// The second model request with the tool's result changed: what a nondeterministic tool would give.
const CHANGED = [...M2.slice(0, 2), { role: 'tool' as const, tool_call_id: 'tc-1', content: 'fig: 4' }];

const brief = (e: StoredEvent) => ({ type: e.type, callId: (e.data as { callId?: string }).callId });

describe('agent recorder: live', () => {
  it('records a model request as ProviderCallRequested/Succeeded, sends the params as given with the run model, and answers with the completion', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller } = recorderOn(liveJournal(log));
    const reply = await recorder.model(request(M1, { attribution: 'query' }));
    expect(caller.seen).to.deep.equal([{ model: MODEL, messages: M1, tools: TOOLS, params: PARAMS }]);
    expect(caller.keys).to.deep.equal([`${RUN}/${JOB}/agent/call-1/attempt-1`]);
    const events = await eventsOf(log);
    expect(events.map((e) => [e.type, e.actor])).to.deep.equal([
      ['ProviderCallRequested', `job/${JOB}/agent`],
      ['ProviderCallSucceeded', `job/${JOB}/agent`],
    ]);
    expect(events[0]!.data).to.deep.equal({
      callId: 'agent/call-1/attempt-1',
      attempt: 1,
      retryOf: null,
      attribution: 'query',
      model: MODEL,
      messages: M1.map((m) => messageBlob(m).ref),
      tools: ['lookup', 'save'],
      params: PARAMS,
    });
    // The messages are in the blob store under the refs the request names.
    expect(await log.blobs(RUN).has(messageBlob(M1[0]!).ref)).to.equal(true);
    expect(reply).to.deep.equal({
      ok: true,
      id: 'chatcmpl-evalog-agent-call-1-attempt-1',
      model: MODEL,
      content: 'answer 1',
      toolCalls: [{ id: 'tc-1', name: 'lookup', arguments: '{"q":"fig"}' }],
      finishReason: 'tool_calls',
      usage: { prompt: 10, completion: 5, total: 15 },
    });
    const second = await recorder.model(request(M2));
    expect(second.ok && second.id).to.equal('chatcmpl-evalog-agent-call-2-attempt-1');
    expect(recorder.state).to.include({ modelCalls: 2, tokens: 30 });
  });

  it('names the reply after the model the response named, when it named one', async () => {
    const { recorder } = recorderOn(liveJournal(MemoryEventLog.open()), { script: (n) => answer(n, { responseModel: 'run-model-2025' }) });
    const reply = await recorder.model(request(M1));
    expect(reply.ok && reply.model).to.equal('run-model-2025');
  });

  it('records tool calls as ToolCalled agent/tool-n, the saving tool with its ArtifactRevised, and runs each once', async () => {
    const log = MemoryEventLog.open();
    const { recorder, runs } = recorderOn(liveJournal(log));
    expect(await recorder.callTool('lookup', { q: 'fig' })).to.deep.equal({ result: 'first: looked up {"q":"fig"}', isError: false });
    expect(await recorder.callTool('save', { text: 'draft 1' })).to.deep.equal({ result: 'first: saved', isError: false });
    await recorder.callTool('save', { text: 'draft 2' });
    // The tool sees the artifact and revision saved before it.
    expect(runs.map((r) => r.at)).to.deep.equal([
      { artifact: null, revision: 0 },
      { artifact: null, revision: 0 },
      { artifact: 'draft 1', revision: 1 },
    ]);
    const events = await eventsOf(log);
    expect(events.map((e) => e.type)).to.deep.equal(['ToolCalled', 'ToolCalled', 'ArtifactRevised', 'ToolCalled', 'ArtifactRevised']);
    expect(events[0]!.data).to.deep.equal({
      callId: 'agent/tool-1',
      toolCallId: 'mcp-1',
      name: 'lookup',
      arguments: '{"q":"fig"}',
      result: 'first: looked up {"q":"fig"}',
      isError: false,
    });
    expect(events[1]!.data).to.include({ callId: 'agent/tool-2', name: 'save' });
    expect(events[2]!.data).to.include({ revision: 1, content: 'draft 1' });
    expect(events[4]!.data).to.include({ revision: 2, content: 'draft 2' });
    expect(recorder.state).to.include({ toolCalls: 3, artifact: 'draft 2', firstArtifact: 'draft 1', revisions: 2 });
  });

  it('answers an unknown tool with a recorded error naming the tools, without running anything', async () => {
    const log = MemoryEventLog.open();
    const { recorder, runs, fatal } = recorderOn(liveJournal(log));
    const reply = await recorder.callTool('rm_rf', { path: '/' });
    expect(reply.isError).to.equal(true);
    expect(reply.result).to.equal('error: unknown tool "rm_rf"; the tools are lookup, save');
    expect(runs).to.have.length(0);
    expect(fatal).to.have.length(0);
    const [called] = await eventsOf(log);
    expect(called!.type).to.equal('ToolCalled');
    expect(called!.data).to.include({ callId: 'agent/tool-1', name: 'rm_rf', arguments: '{"path":"/"}', isError: true, result: reply.result });
  });

  it('records arguments that are not an object as their JSON text (and none as {})', async () => {
    const log = MemoryEventLog.open();
    const { recorder, runs } = recorderOn(liveJournal(log));
    await recorder.callTool('lookup', 'q=fig');
    await recorder.callTool('lookup', [1, 2]);
    await recorder.callTool('lookup', 7);
    await recorder.callTool('lookup', undefined);
    const recorded = (await eventsOf(log)).map((e) => (e.data as { arguments: string }).arguments);
    expect(recorded).to.deep.equal(['"q=fig"', '[1,2]', '7', '{}']);
    // The tool is given exactly what was recorded, so a resumed run's tool sees the same text.
    expect(runs.map((r) => r.args)).to.deep.equal(recorded);
  });

  it('answers a call that failed without a retry with 502 and upstream_<kind>', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller } = recorderOn(liveJournal(log), { script: () => failure('client_error', false) });
    const reply = await recorder.model(request(M1));
    expect(reply).to.deep.equal({
      ok: false,
      status: 502,
      code: 'upstream_client_error',
      message: 'evalog: the model call failed after 1 attempt(s): upstream said client_error',
    });
    expect(caller.seen).to.have.length(1);
    expect((await eventsOf(log)).map(brief)).to.deep.equal([
      { type: 'ProviderCallRequested', callId: 'agent/call-1/attempt-1' },
      { type: 'ProviderCallFailed', callId: 'agent/call-1/attempt-1' },
    ]);
  });

  it('retries a retryable failure under the same request, which counts once against the call budget', async () => {
    const log = MemoryEventLog.open();
    const script = (n: number) => (n === 1 ? failure('server_error', true) : answer(2));
    const { recorder, caller } = recorderOn(liveJournal(log), { script, limits: { ...LIMITS, modelCalls: 1 } });
    const reply = await recorder.model(request(M1));
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-call-1-attempt-2');
    expect(caller.seen).to.have.length(2);
    expect(recorder.state.modelCalls).to.equal(1);
    expect((await recorder.model(request(M2))).ok).to.equal(false);
  });

  it('refuses requests past the call budget with 403 budget_exhausted, recording BudgetExhausted once', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller } = recorderOn(liveJournal(log), { limits: { ...LIMITS, modelCalls: 1 } });
    expect((await recorder.model(request(M1))).ok).to.equal(true);
    const refused = await recorder.model(request(M2));
    expect(refused).to.deep.include({ ok: false, status: 403, code: 'budget_exhausted' });
    expect(await recorder.model(request(M3))).to.deep.equal(refused);
    expect(caller.seen).to.have.length(1);
    const budget = (await eventsOf(log)).filter((e) => e.type === 'BudgetExhausted');
    expect(budget.map((e) => e.data)).to.deep.equal([{ budget: 'model_calls', limit: 1, used: 1 }]);
    expect(recorder.state.budget).to.equal('model_calls');
  });

  it('refuses requests once the reported tokens reach the token budget, recording BudgetExhausted once', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller } = recorderOn(liveJournal(log), { limits: { ...LIMITS, tokens: 10 } });
    expect((await recorder.model(request(M1))).ok).to.equal(true);
    const refused = await recorder.model(request(M2));
    expect(refused).to.deep.include({ ok: false, status: 403, code: 'budget_exhausted' });
    expect((await recorder.model(request(M3))).ok).to.equal(false);
    expect(caller.seen).to.have.length(1);
    const budget = (await eventsOf(log)).filter((e) => e.type === 'BudgetExhausted');
    expect(budget.map((e) => e.data)).to.deep.equal([{ budget: 'tokens', limit: 10, used: 15 }]);
  });

  it('records requests one at a time in the order they were made, even when they come at once', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller, runs } = recorderOn(liveJournal(log));
    let open!: () => void;
    caller.gate = new Promise((resolve) => (open = resolve));
    const first = recorder.model(request(M1));
    const tool = recorder.callTool('save', { text: 'v1' });
    const second = recorder.model(request(M2));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // The first model call is in flight: the tool has not run and the second request was not sent.
    expect(caller.seen).to.have.length(1);
    expect(runs).to.have.length(0);
    open();
    await Promise.all([first, tool, second]);
    expect((await eventsOf(log)).map(brief)).to.deep.equal([
      { type: 'ProviderCallRequested', callId: 'agent/call-1/attempt-1' },
      { type: 'ProviderCallSucceeded', callId: 'agent/call-1/attempt-1' },
      { type: 'ToolCalled', callId: 'agent/tool-1' },
      { type: 'ArtifactRevised', callId: undefined },
      { type: 'ProviderCallRequested', callId: 'agent/call-2/attempt-1' },
      { type: 'ProviderCallSucceeded', callId: 'agent/call-2/attempt-1' },
    ]);
  });
});

/** A job recorded live (JobStarted, 2 model calls, a save), its log closed as a crashed process's is. */
async function recordedJob() {
  const store = new MemoryStore();
  const log = MemoryEventLog.open(store);
  const journal = liveJournal(log);
  const { recorder, job } = recorderOn(journal);
  recorder.fold([await job.scope.emit(`job/${JOB}`, started)]);
  const replies = [await recorder.model(request(M1)), await recorder.model(request(M2)), await recorder.callTool('save', { text: 'v1' })];
  await log.close();
  return { store, replies };
}

const started = draft('JobStarted', { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 });

/** A second process on the same store: its log, and a resume (or replay) journal from the recorded scopes. */
async function rerun(store: MemoryStore, mode: 'resume' | 'replay') {
  const log = MemoryEventLog.open(store);
  const recorded = await byScope(log);
  const options = { clock: steppingClock(T0 + 3_600_000, 1_000) };
  const journal = mode === 'resume' ? Journal.resume(log, RUN, recorded, options) : Journal.replay(log, RUN, recorded, options);
  const r = recorderOn(journal, { tag: 'second' });
  r.recorder.fold([await r.job.scope.emit(`job/${JOB}`, started)]);
  return { log, before: recorded.get(JOB)!.length, ...r };
}

describe('agent recorder: resume', () => {
  it('answers the recorded requests from the log (no model call, no tool run), then goes on live', async () => {
    const { store, replies } = await recordedJob();
    const { log, before, recorder, caller, runs, fatal } = await rerun(store, 'resume');
    expect(before).to.equal(7);
    const again = [await recorder.model(request(M1)), await recorder.model(request(M2)), await recorder.callTool('save', { text: 'v1' })];
    expect(again).to.deep.equal(replies);
    expect(caller.seen).to.have.length(0);
    expect(runs).to.have.length(0);
    expect(fatal).to.deep.equal([]);
    // The artifact is the recorded one, and every re-emitted event matched the record (nothing appended).
    expect(recorder.state).to.include({ modelCalls: 2, toolCalls: 1, artifact: 'v1', revisions: 1 });
    expect(await eventsOf(log)).to.have.length(7);

    const third = await recorder.model(request(M3));
    expect(third.ok && third.content).to.equal('answer 1');
    expect(caller.seen).to.have.length(1);
    const appended = (await eventsOf(log)).slice(7);
    expect(appended.map(brief)).to.deep.equal([
      { type: 'ProviderCallRequested', callId: 'agent/call-3/attempt-1' },
      { type: 'ProviderCallSucceeded', callId: 'agent/call-3/attempt-1' },
    ]);
    expect(appended.map((e) => e.id)).to.deep.equal([eventId(RUN, JOB, 8), eventId(RUN, JOB, 9)]);
    expect(fatal).to.deep.equal([]);
  });

  it('records a different model request as AgentDiverged after the recorded tail, and calls the model live in a new round', async () => {
    const { store } = await recordedJob();
    const { log, recorder, caller, runs, fatal } = await rerun(store, 'resume');
    await recorder.model(request(M1));
    const reply = await recorder.model(request(CHANGED));
    expect(fatal).to.deep.equal([]);
    expect(caller.seen.map((r) => r.messages)).to.deep.equal([CHANGED]);
    const appended = (await eventsOf(log)).slice(7);
    expect(appended[0]!.type).to.equal('AgentDiverged');
    expect(appended[0]!.data).to.deep.include({ index: 2, kind: 'model', field: 'messages[2]' });
    // Numbered on after the abandoned tail, which stays in the log.
    expect(appended[0]!.id).to.equal(eventId(RUN, JOB, 8));
    expect(appended.slice(1).map(brief)).to.deep.equal([
      { type: 'ProviderCallRequested', callId: 'agent/r1/call-2/attempt-1' },
      { type: 'ProviderCallSucceeded', callId: 'agent/r1/call-2/attempt-1' },
    ]);
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-r1-call-2-attempt-1');
    // The tool call the record held after it is run live now.
    await recorder.callTool('save', { text: 'v1' });
    expect(runs).to.have.length(1);
    expect((await eventsOf(log)).at(-2)!.data).to.include({ callId: 'agent/r1/tool-1', result: 'second: saved' });
  });

  it('records a different tool argument as AgentDiverged at the tool call, and runs the tool live', async () => {
    const { store } = await recordedJob();
    const { log, recorder, caller, runs, fatal } = await rerun(store, 'resume');
    await recorder.model(request(M1));
    await recorder.model(request(M2));
    const reply = await recorder.callTool('save', { text: 'v2' });
    expect(fatal).to.deep.equal([]);
    expect(caller.seen).to.have.length(0);
    expect(reply).to.deep.equal({ result: 'second: saved', isError: false });
    expect(runs.map((r) => r.args)).to.deep.equal(['{"text":"v2"}']);
    const appended = (await eventsOf(log)).slice(7);
    expect(appended.map((e) => e.type)).to.deep.equal(['AgentDiverged', 'ToolCalled', 'ArtifactRevised']);
    expect(appended[0]!.data).to.deep.include({ index: 3, kind: 'tool', field: 'arguments' });
    expect(appended[1]!.data).to.include({ callId: 'agent/r1/tool-1', arguments: '{"text":"v2"}' });
    expect(appended[2]!.data).to.include({ revision: 1, content: 'v2' });
    expect(recorder.state).to.include({ artifact: 'v2', epoch: 1 });
  });
  it('refuses the recorded budget-breaking request again, matching its BudgetExhausted instead of adding one', async () => {
    const store = new MemoryStore();
    const log = MemoryEventLog.open(store);
    const limits = { ...LIMITS, modelCalls: 1 };
    const live = recorderOn(liveJournal(log), { limits });
    live.recorder.fold([await live.job.scope.emit(`job/${JOB}`, started)]);
    await live.recorder.model(request(M1));
    await live.recorder.model(request(M2));
    await log.close();
    const log2 = MemoryEventLog.open(store);
    const journal = Journal.resume(log2, RUN, await byScope(log2), { clock: steppingClock(T0, 1_000) });
    const { recorder, caller, fatal, job } = recorderOn(journal, { limits });
    recorder.fold([await job.scope.emit(`job/${JOB}`, started)]);
    expect((await recorder.model(request(M1))).ok).to.equal(true);
    expect(await recorder.model(request(M2))).to.deep.include({ status: 403, code: 'budget_exhausted' });
    expect(await recorder.model(request(M3))).to.deep.include({ status: 403, code: 'budget_exhausted' });
    expect([caller.seen.length, fatal.length]).to.deep.equal([0, 0]);
    expect((await eventsOf(log2)).map((e) => e.type)).to.deep.equal(['JobStarted', 'ProviderCallRequested', 'ProviderCallSucceeded', 'BudgetExhausted']);
  });

  it("has a second resume that diverges where the first did, the same way, follow the first resume's round from the record", async () => {
    const { store } = await recordedJob();
    const first = await rerun(store, 'resume');
    await first.recorder.model(request(M1));
    await first.recorder.model(request(CHANGED));
    await first.log.close();
    const second = await rerun(store, 'resume');
    await second.recorder.model(request(M1));
    const reply = await second.recorder.model(request(CHANGED));
    expect(second.fatal).to.deep.equal([]);
    // The first resume's round-1 call is answered from the log: nothing is sent, nothing is appended.
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-r1-call-2-attempt-1');
    expect(second.caller.seen).to.have.length(0);
    const requested = (await eventsOf(second.log)).filter((e) => e.type === 'ProviderCallRequested').map(brief);
    expect(requested.map((r) => r.callId)).to.deep.equal(['agent/call-1/attempt-1', 'agent/call-2/attempt-1', 'agent/r1/call-2/attempt-1']);
    // A third request goes live after the first resume's record, still in round 1.
    const third = await second.recorder.model(request(M2));
    expect(third.ok && third.id).to.equal('chatcmpl-evalog-agent-r1-call-3-attempt-1');
    expect(second.caller.seen).to.have.length(1);
  });

  it('gives a second resume that diverges where the first did, but another way, a round of its own', async () => {
    const { store } = await recordedJob();
    const first = await rerun(store, 'resume');
    await first.recorder.model(request(M1));
    await first.recorder.model(request(CHANGED));
    await first.log.close();
    const second = await rerun(store, 'resume');
    await second.recorder.model(request(M1));
    const reply = await second.recorder.model(request(M2.slice(0, 1)));
    expect(second.fatal).to.deep.equal([]);
    // Named in round 2, the call is not answered by the first resume's round-1 outcome.
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-r2-call-2-attempt-1');
    expect(second.caller.seen).to.have.length(1);
  });

  it('sends a request that was in flight when the writer died again as a new attempt, and no completed one', async () => {
    const store = new MemoryStore();
    const log = MemoryEventLog.open(store);
    const crash = (n: number): AttemptResult => {
      if (n === 2) throw new Error('the process died here');
      return answer(n);
    };
    const live = recorderOn(liveJournal(log), { script: crash });
    live.recorder.fold([await live.job.scope.emit(`job/${JOB}`, started)]);
    await live.recorder.model(request(M1));
    await live.recorder.model(request(M2));
    expect(live.fatal).to.have.length(1);
    await log.close();
    const { log: log2, before, recorder, caller, fatal } = await rerun(store, 'resume');
    expect(before).to.equal(4);
    await recorder.model(request(M1));
    const reply = await recorder.model(request(M2));
    expect(fatal).to.deep.equal([]);
    expect(caller.seen.map((r) => r.messages)).to.deep.equal([M2]);
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-call-2-attempt-2');
    const appended = (await eventsOf(log2)).slice(before);
    expect(appended.map((e) => [e.type, (e.data as { kind?: string }).kind])).to.deep.equal([
      ['ProviderCallFailed', 'unknown'],
      ['ProviderCallRequested', undefined],
      ['ProviderCallSucceeded', undefined],
    ]);
    expect(recorder.state.modelCalls).to.equal(2);
  });

  it('saves the artifact of a recorded tool call whose ArtifactRevised the kill cut off, running the tool again for it', async () => {
    // The live process logged the save's ToolCalled and died before its ArtifactRevised.
    const full = MemoryEventLog.open();
    const live = recorderOn(liveJournal(full));
    live.recorder.fold([await live.job.scope.emit(`job/${JOB}`, started)]);
    await live.recorder.callTool('save', { text: 'v1' });
    const store = new MemoryStore();
    const cut = MemoryEventLog.open(store);
    const kept = (await eventsOf(full)).filter((e) => e.type !== 'ArtifactRevised').map(({ seq: _seq, ...e }) => e);
    await cut.append(kept as Parameters<MemoryEventLog['append']>[0]);
    await cut.close();

    const { log, before, recorder, runs, fatal } = await rerun(store, 'resume');
    expect(before).to.equal(2);
    expect(await recorder.callTool('save', { text: 'v1' })).to.deep.equal({ result: 'first: saved', isError: false });
    expect(fatal).to.deep.equal([]);
    // The reply is the record's; the tool ran once more, only for the revision it saves.
    expect(runs.map((r) => r.args)).to.deep.equal(['{"text":"v1"}']);
    const appended = (await eventsOf(log)).slice(before);
    expect(appended.map((e) => [e.type, e.id])).to.deep.equal([['ArtifactRevised', eventId(RUN, JOB, 3)]]);
    expect(appended[0]!.data).to.include({ revision: 1, content: 'v1' });
    expect(recorder.state).to.include({ artifact: 'v1', revisions: 1 });
  });

  it("records an exit where the record holds a further request at the exit's own index", async () => {
    const { store } = await recordedJob();
    const { log, recorder, fatal } = await rerun(store, 'resume');
    await recorder.model(request(M1));
    const atExit = (r: StoredEvent) => (r.type === 'AgentExited' ? null : { field: 'kind', detail: `the record holds ${r.type} here` });
    expect(await recorder.diverges('exit', atExit)).to.equal(true);
    expect(fatal).to.deep.equal([]);
    const [diverged] = (await eventsOf(log)).slice(7);
    expect(diverged!.data).to.deep.include({ index: 2, kind: 'exit', field: 'kind' });
  });
});

describe('agent recorder: replay', () => {
  it('passes the recorded requests without calling the model or running a tool', async () => {
    const { store, replies } = await recordedJob();
    const { log, recorder, caller, runs, fatal } = await rerun(store, 'replay');
    const again = [await recorder.model(request(M1)), await recorder.model(request(M2)), await recorder.callTool('save', { text: 'v1' })];
    expect(again).to.deep.equal(replies);
    expect([caller.seen.length, runs.length, fatal.length]).to.deep.equal([0, 0, 0]);
    expect(await eventsOf(log)).to.have.length(7);
  });

  it('ends the job with an AgentDivergedError naming the index and field, and answers later requests job_ended', async () => {
    const { store } = await recordedJob();
    const { log, recorder, caller, runs, fatal } = await rerun(store, 'replay');
    await recorder.model(request(M1));
    const ended: AgentModelReply = { ok: false, status: 503, code: 'job_ended', message: 'the job has ended' };
    expect(await recorder.model(request(M2, { params: { ...PARAMS, temperature: 0.9 } }))).to.deep.equal(ended);
    expect(fatal).to.have.length(1);
    const err = fatal[0] as AgentDivergedError;
    expect(err).to.be.instanceOf(AgentDivergedError).and.instanceOf(DeterminismViolation);
    expect([err.index, err.kind, err.mismatch.field]).to.deep.equal([2, 'model', 'params.temperature']);
    expect(err.message).to.equal("the agent's request 2 (model) differs from the record at params.temperature: recorded 0.3, now 0.9");
    expect(recorder.failure).to.equal(err);
    // Even the recorded request is not answered now: the job has ended.
    expect(await recorder.model(request(M2))).to.deep.equal(ended);
    expect(await recorder.callTool('save', { text: 'v1' })).to.deep.equal({ result: 'error: the job has ended', isError: true });
    expect([caller.seen.length, runs.length, fatal.length]).to.deep.equal([0, 0, 1]);
    expect(await eventsOf(log)).to.have.length(7);
  });

  it('reports a different tool argument as a divergence of the tool call at its index', async () => {
    const { store } = await recordedJob();
    const { recorder, runs, fatal } = await rerun(store, 'replay');
    await recorder.model(request(M1));
    await recorder.model(request(M2));
    expect((await recorder.callTool('save', { text: 'v2' })).isError).to.equal(true);
    const err = fatal[0] as AgentDivergedError;
    expect(err).to.be.instanceOf(AgentDivergedError);
    expect([err.index, err.kind, err.mismatch.field]).to.deep.equal([3, 'tool', 'arguments']);
    expect(runs).to.have.length(0);
  });

  it('ends the job at a request past the end of the record, without calling the model', async () => {
    const { store } = await recordedJob();
    const { recorder, caller, fatal } = await rerun(store, 'replay');
    await recorder.model(request(M1));
    await recorder.model(request(M2));
    await recorder.callTool('save', { text: 'v1' });
    expect((await recorder.model(request(M3))).ok).to.equal(false);
    expect(fatal.map((e) => (e as Error).name)).to.deep.equal(['EndOfRecording']);
    expect(caller.seen).to.have.length(0);
  });
});

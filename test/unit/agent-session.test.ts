// An external agent on a session suite: the job keeps the suite's environment, runs each tool call
// over MCP as one session tool (its queries run by the harness), records the injections due after
// a tool, between turns and at a query, delivers host notices on the next tool result, enforces the
// cell's budgets, and restarts the agent's process at a worker_restart. A small session suite bound
// by defineSuite as a run binds it, a real Journal on a MemoryEventLog, a counting ModelCaller.
import { expect } from 'chai';
import { z } from 'zod';
import { steppingClock } from '../../src/core/clock.js';
import type { DataOf, StoredEvent } from '../../src/events/index.js';
import { agentActor } from '../../src/harness/external/logic.js';
import { agentJobSetting } from '../../src/harness/external/machine.js';
import { AgentDivergedError, AgentRecorder } from '../../src/harness/external/recorder.js';
import { AgentSession } from '../../src/harness/external/session.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';
import { draft, Journal } from '../../src/harness/kernel/journal.js';
import { jobJournal, type ProviderPort } from '../../src/harness/kernel/ports.js';
import { baseConfigShape } from '../../src/harness/suite/base-config.js';
import { defineSuite, type ExternalAgentHooks } from '../../src/harness/suite/define.js';
import type { Injection, InjectionPoint, SessionSettings, SuiteConfigBase } from '../../src/harness/suite/types.js';
import { MemoryEventLog, MemoryStore } from '../../src/log/memory/index.js';
import type { AttemptResult, CallOptions, ModelCaller } from '../../src/providers/caller.js';
import type { ChatMessage, ChatRequest } from '../../src/providers/chat.js';

const RUN = 'run-session';
const JOB = 'c1:cell:1';
const T0 = Date.parse('2025-06-01T09:00:00.000Z');
const SETTINGS: SessionSettings = {
  model: 'cell-model',
  sampling: { temperature: 0.2, maxTokens: 99 },
  provider: { timeoutMs: 5_000, maxAttempts: 3, backoffMs: 0, maxBackoffMs: 0 },
  budget: { mainCalls: 3, modelCalls: 6, deadlineMs: 60_000 },
  queries: true,
};

interface Env {
  reads: number;
  writes: number;
  submitted: string | null;
}

/** The planned injections of the suite: a notice after the first read, a cut query reply, a context switch after the first write, and (in the `restart` case) a worker restart after it. */
function due(restart: boolean, env: Env, fired: readonly string[], at: InjectionPoint): Injection[] {
  const base = { target: 'worker', detail: 'planned', mutation: null, keepChars: null };
  const plan: (Injection & { when: boolean })[] = [
    { ...base, id: 'changed', kind: 'source_mutation', notice: 'page 1 changed', when: at.type === 'tool' && env.reads >= 1 },
    { ...base, id: 'cut', kind: 'query_truncation', notice: null, keepChars: 4, when: at.type === 'query' && at.batch === 1 && at.index === 0 },
    { ...base, id: 'switch', kind: 'context_switch', notice: 'context switched', when: !restart && at.type === 'turn' && env.writes >= 1 },
    { ...base, id: 'restart', kind: 'worker_restart', notice: 'you were restarted', when: restart && at.type === 'tool' && env.writes >= 1 },
  ];
  return plan.filter((p) => p.when && !fired.includes(p.id)).map(({ when: _w, ...i }) => i);
}

const suite = defineSuite<SuiteConfigBase, { restart: boolean }, Env>({
  name: 'notebook',
  description: 'a small session suite',
  shape: 'session',
  configSchema: z.object({ ...baseConfigShape }).strict(),
  defaults: {
    repetitions: 1,
    concurrency: 1,
    seed: 1,
    orderSeed: 1,
    cases: null,
    model: { temperature: 0, maxTokens: 64 },
    worker: { turnCap: 5, timeLimitMs: 1_000 },
    provider: { timeoutMs: 1_000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0 },
  },
  prepare: async () => ({
    cases: [
      { id: 'c1', data: { restart: false } },
      { id: 'c2', data: { restart: true } },
    ],
  }),
  arms: () => ['cell'],
  session: {
    settings: () => SETTINGS,
    request: () => ({
      messages: [{ role: 'user', content: 'take notes' }],
      tools: ['read', 'ask', 'write', 'submit'].map((name) => ({ name, description: name, parameters: { type: 'object' } })),
    }),
    initialEnvironment: () => ({ reads: 0, writes: 0, submitted: null }),
    evolveEnvironment: (env, e) => {
      if (e.type === 'ToolCalled' && e.data.name === 'read' && !e.data.isError) return { ...env, reads: env.reads + 1 };
      if (e.type === 'EnvironmentChanged') return e.data.terminal ? { ...env, submitted: e.data.value } : { ...env, writes: env.writes + 1 };
      return env;
    },
    runTool: (name, args) => {
      const a = JSON.parse(args) as Record<string, string>;
      if (name === 'read') return { result: `page ${a.page}`, isError: false };
      if (name === 'ask') return { result: '', isError: false, queries: [{ messages: [{ role: 'user', content: `[query] ${a.q}` }] }] };
      if (name === 'write')
        return { result: 'written', isError: false, effects: [{ effect: `write:${a.text}`, target: 'notes', value: a.text!, terminal: false }] };
      if (name === 'submit')
        return { result: 'submitted', isError: false, effects: [{ effect: 'submit', target: 'answer', value: a.answer!, terminal: true }] };
      return { result: `error: no tool ${name}`, isError: true };
    },
    injectionsDue: (c, env, fired, at) => due(c.data.restart, env, fired, at),
  },
  grade: () => ({ checks: [], firstRevisionPassed: null }),
});

/** A model that answers every request and keeps them; a query may be held (a run killed while it is in flight). */
class CountingCaller implements ModelCaller {
  readonly seen: ChatRequest[] = [];
  holdQueries = false;
  constructor(private readonly fail = false) {}
  async call(request: ChatRequest, _options: CallOptions): Promise<AttemptResult> {
    this.seen.push(request);
    const query = String(request.messages[0]?.content).startsWith('[query]');
    if (query && this.holdQueries) await new Promise(() => {});
    if (this.fail) return { ok: false, data: { kind: 'server_error', status: 500, retryAfterMs: null, message: 'down', retryable: true, latencyMs: 1 } };
    const data = {
      content: query ? 'the total is 42' : 'ok',
      toolCalls: [],
      finishReason: 'stop',
      usage: { prompt: 3, completion: 2, total: 5 },
      latencyMs: 1,
    };
    return { ok: true, data };
  }
}

function port(caller: ModelCaller): ProviderPort {
  return {
    caller,
    model: 'run-model',
    sampling: { temperature: 0, maxTokens: 64 },
    seed: 2,
    policy: { maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, timeoutMs: 1_000 },
    sleep: async () => {},
    signal: new AbortController().signal,
  };
}

const AGENT = { command: ['node', 'agent.mjs'], cwd: '/nowhere', env: [] };

/** The job's recorder as the external job machine sets it up: the cell's model and settings, its budgets as the limits. */
async function recorderOn(journal: Journal, o: { caseId?: string; caller?: CountingCaller; budget?: Partial<SessionSettings['budget']> } = {}) {
  const caseId = o.caseId ?? 'c1';
  const config = { ...suite.defaults(), agent: AGENT };
  const bound = (await suite.configure(config).prepare()).hooks({ jobId: JOB, caseId, arm: 'cell', repetition: 1, seed: 2 });
  if (bound.shape !== 'external' || !bound.external.session) throw new Error('a session suite with an agent binds external session hooks');
  const base: ExternalAgentHooks = o.budget
    ? { ...bound.external, session: { ...bound.external.session, settings: { ...SETTINGS, budget: { ...SETTINGS.budget, ...o.budget } } } }
    : bound.external;
  const caller = o.caller ?? new CountingCaller();
  const { provider, external, limits } = agentJobSetting(port(caller), base, { turnCap: 5, timeLimitMs: 1_000 });
  const job = jobJournal(journal, JOB);
  const session = new AgentSession({ journal: job, provider, session: external.session!, actor: agentActor(JOB) });
  const fatal: unknown[] = [];
  const restarts: Injection[] = [];
  const recorder = new AgentRecorder({
    journal: job,
    provider,
    hooks: external,
    tools: external.task().tools,
    limits,
    session,
    onFatal: (err) => fatal.push(err),
    onRestart: (i) => restarts.push(i),
  });
  recorder.fold([await job.scope.emit(`job/${JOB}`, draft('JobStarted', { caseId, arm: 'cell', repetition: 1, seed: 2 }))]);
  return { recorder, session, caller, fatal, restarts, limits, provider, external };
}

const user = (content: string): ChatMessage => ({ role: 'user', content });
const main = (messages: ChatMessage[], over: Partial<AgentModelRequest> = {}): AgentModelRequest => ({
  attribution: 'main',
  messages,
  tools: [],
  params: { temperature: 0 },
  stream: false,
  includeUsage: false,
  ...over,
});

/** The agent's requests: read, ask (a query), write, a second main call, submit. */
async function play(recorder: AgentRecorder, askArgs: object = { q: 'total?' }) {
  return [
    await recorder.model(main([user('take notes')])),
    await recorder.callTool('read', { page: 1 }),
    await recorder.callTool('ask', askArgs),
    await recorder.callTool('write', { text: 'draft' }),
    await recorder.model(main([user('take notes'), user('and then')])),
    await recorder.callTool('submit', { answer: '42' }),
  ];
}

async function eventsOf(log: MemoryEventLog, job = JOB): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(RUN)) if (e.jobId === job) out.push(e);
  return out;
}

async function byScope(log: MemoryEventLog): Promise<Map<string, StoredEvent[]>> {
  const m = new Map<string, StoredEvent[]>();
  for await (const e of log.read(RUN)) m.set(e.jobId ?? '', [...(m.get(e.jobId ?? '') ?? []), e]);
  return m;
}

const clock = () => steppingClock(T0, 1_000);
const brief = (e: StoredEvent) => {
  const d = e.data as { callId?: string; injectionId?: string; attribution?: string };
  return [e.actor.slice(`job/${JOB}`.length) || '/', e.type, d.callId ?? d.injectionId ?? ''];
};

/** A recorded job of the whole play, on its own store. */
async function recordedJob() {
  const store = new MemoryStore();
  const log = MemoryEventLog.open(store);
  const live = await recorderOn(Journal.live(log, RUN, { clock: clock() }));
  const replies = await play(live.recorder);
  return { store, log, live, replies };
}

describe('external agent on a session suite: bound hooks and limits', () => {
  it('is given the session request as its task, the cell model, sampling and retries, and the cell budgets as limits', async () => {
    const { external, limits, provider } = await recorderOn(Journal.live(MemoryEventLog.open(), RUN, { clock: clock() }));
    expect(external.task().messages).to.deep.equal([{ role: 'user', content: 'take notes' }]);
    expect(external.task().tools.map((t) => t.name)).to.deep.equal(['read', 'ask', 'write', 'submit']);
    expect([provider.model, provider.sampling, provider.policy]).to.deep.equal(['cell-model', SETTINGS.sampling, SETTINGS.provider]);
    expect(limits).to.deep.equal({ modelCalls: 6, tokens: null, timeLimitMs: 60_000 });
  });

  it("takes an agent's own limits over the cell's, in the session settings too (queries and retries obey them)", async () => {
    const hooks = (await suite.configure({ ...suite.defaults(), agent: { ...AGENT, limits: { modelCalls: 2 } } }).prepare()).hooks({
      jobId: JOB,
      caseId: 'c1',
      arm: 'cell',
      repetition: 1,
      seed: 2,
    });
    if (hooks.shape !== 'external') throw new Error('external hooks expected');
    const { limits, external } = agentJobSetting(port(new CountingCaller()), hooks.external, { turnCap: 5, timeLimitMs: 1_000 });
    expect(limits).to.deep.equal({ modelCalls: 2, tokens: null, timeLimitMs: 60_000 });
    expect(external.session!.settings.budget).to.deep.equal({ mainCalls: 3, modelCalls: 2, deadlineMs: 60_000 });
  });
});

describe('external agent on a session suite: live', () => {
  it('records each tool call as a session tool, the injections where they fall, and keeps the environment as the fold', async () => {
    const { log, live, replies } = await recordedJob();
    expect(live.fatal).to.deep.equal([]);
    expect((await eventsOf(log)).map(brief)).to.deep.equal([
      ['/', 'JobStarted', ''],
      ['/agent', 'ProviderCallRequested', 'agent/call-1/attempt-1'],
      ['/agent', 'ProviderCallSucceeded', 'agent/call-1/attempt-1'],
      ['/agent', 'ToolCalled', 'agent/tool-1'],
      ['/host', 'FaultInjected', 'changed'],
      // The query is the harness's call for the tool, named after it, run before the tool is recorded.
      ['/agent', 'ProviderCallRequested', 'agent/tool-2/query-0/attempt-1'],
      ['/agent', 'ProviderCallSucceeded', 'agent/tool-2/query-0/attempt-1'],
      ['/host', 'FaultInjected', 'cut'],
      ['/agent', 'ToolCalled', 'agent/tool-2'],
      ['/agent', 'ToolCalled', 'agent/tool-3'],
      ['/agent', 'EnvironmentChanged', 'agent/tool-3'],
      // Between turns: recorded before the agent's next main call.
      ['/host', 'FaultInjected', 'switch'],
      ['/agent', 'ProviderCallRequested', 'agent/call-2/attempt-1'],
      ['/agent', 'ProviderCallSucceeded', 'agent/call-2/attempt-1'],
      ['/agent', 'ToolCalled', 'agent/tool-4'],
      ['/agent', 'EnvironmentChanged', 'agent/tool-4'],
    ]);
    const query = (await eventsOf(log)).find((e) => e.type === 'ProviderCallRequested' && e.data.attribution === 'query');
    expect(query?.data).to.deep.include({ model: 'cell-model', params: { temperature: 0.2, max_tokens: 99, seed: 2 } });
    // The notice rides on the tool result it follows; the query reply is cut as the injection says;
    // the context switch's notice reaches the agent on its next tool result.
    expect(replies[1]).to.deep.equal({ result: 'page 1\n[host] page 1 changed', isError: false });
    expect(replies[2]).to.deep.equal({ result: JSON.stringify({ results: [{ query: 0, status: 'truncated', reply: 'the ' }] }), isError: false });
    expect(replies[3]).to.deep.equal({ result: 'written', isError: false });
    expect(replies[5]).to.deep.equal({ result: 'submitted\n[host] context switched', isError: false });
    // The agent made two model requests; the query is not one of them. The environment is the suite's fold.
    expect(live.recorder.state).to.include({ modelCalls: 2, toolCalls: 4 });
    expect(live.session.state.environment).to.deep.equal({ reads: 1, writes: 1, submitted: '42' });
    expect(live.session.state.fired).to.deep.equal(['changed', 'cut', 'switch']);
  });

  it('refuses a main request past the main-call budget with 403 and records BudgetExhausted main_calls once; other attributions go on', async () => {
    const log = MemoryEventLog.open();
    const { recorder, caller } = await recorderOn(Journal.live(log, RUN, { clock: clock() }), { budget: { mainCalls: 2, modelCalls: 4 } });
    expect((await recorder.model(main([user('1')]))).ok).to.equal(true);
    expect((await recorder.model(main([user('2')]))).ok).to.equal(true);
    expect(await recorder.model(main([user('3')]))).to.deep.include({ ok: false, status: 403, code: 'budget_exhausted' });
    // A call the agent attributes to `query` spends the model-call budget only.
    expect((await recorder.model(main([user('q')], { attribution: 'query' }))).ok).to.equal(true);
    expect((await recorder.model(main([user('q2')], { attribution: 'query' }))).ok).to.equal(true);
    expect(await recorder.model(main([user('q3')], { attribution: 'query' }))).to.deep.include({ status: 403, code: 'budget_exhausted' });
    expect(caller.seen).to.have.length(4);
    const budgets = (await eventsOf(log)).filter((e) => e.type === 'BudgetExhausted').map((e) => e.data);
    expect(budgets).to.deep.equal([{ budget: 'main_calls', limit: 2, used: 2 }]);
  });

  it("caps a call's retries by the budget left: each attempt is a call", async () => {
    const log = MemoryEventLog.open();
    const caller = new CountingCaller(true);
    const { recorder } = await recorderOn(Journal.live(log, RUN, { clock: clock() }), { caller, budget: { modelCalls: 2 } });
    expect(await recorder.model(main([user('1')]))).to.deep.include({ ok: false, status: 502, code: 'upstream_server_error' });
    // The cell allows 3 attempts, the budget 2 calls.
    expect(caller.seen).to.have.length(2);
    expect(await recorder.model(main([user('2')]))).to.deep.include({ status: 403, code: 'budget_exhausted' });
    const budgets = (await eventsOf(log)).filter((e) => e.type === 'BudgetExhausted').map((e) => e.data as DataOf<'BudgetExhausted'>);
    expect(budgets).to.deep.equal([{ budget: 'model_calls', limit: 2, used: 2 }]);
  });
});

describe('external agent on a session suite: resume and replay', () => {
  it('on resume, answers the recorded requests from the record: the tool bodies re-run and match, no model call is sent, the replies are the same', async () => {
    const { store, replies } = await recordedJob();
    const log = MemoryEventLog.open(store);
    const before = (await eventsOf(log)).length;
    const again = await recorderOn(Journal.resume(log, RUN, await byScope(log), { clock: clock() }));
    expect(await play(again.recorder)).to.deep.equal(replies);
    expect(again.fatal).to.deep.equal([]);
    expect(again.caller.seen, 'requests sent upstream').to.have.length(0);
    expect(await eventsOf(log)).to.have.length(before);
    expect(again.session.state.environment).to.deep.equal({ reads: 1, writes: 1, submitted: '42' });
  });

  it('resumes a tool call whose query was in flight at the crash: the cut-off attempt is settled unknown and retried, the tool recorded once', async () => {
    const store = new MemoryStore();
    const log = MemoryEventLog.open(store);
    const held = new CountingCaller();
    held.holdQueries = true;
    const first = await recorderOn(Journal.live(log, RUN, { clock: clock() }), { caller: held });
    await first.recorder.model(main([user('take notes')]));
    await first.recorder.callTool('read', { page: 1 });
    void first.recorder.callTool('ask', { q: 'total?' });
    // The crash: the query's request is recorded, its answer never comes.
    await new Promise((r) => setTimeout(r, 20));
    expect((await eventsOf(log)).at(-1)!.data).to.include({ callId: 'agent/tool-2/query-0/attempt-1' });

    const again = await recorderOn(Journal.resume(log, RUN, await byScope(log), { clock: clock() }));
    const replies = await play(again.recorder);
    expect(again.fatal).to.deep.equal([]);
    expect(replies[2]).to.deep.equal({ result: JSON.stringify({ results: [{ query: 0, status: 'truncated', reply: 'the ' }] }), isError: false });
    // Only the retried query and the calls past the record were sent.
    expect(again.caller.seen.map((r) => String(r.messages[0]?.content))).to.deep.equal(['[query] total?', 'take notes']);
    const events = await eventsOf(log);
    expect(events.filter((e) => e.type === 'AgentDiverged')).to.deep.equal([]);
    expect(events.filter((e) => e.type === 'ToolCalled').map((e) => (e.data as { callId: string }).callId)).to.deep.equal([
      'agent/tool-1',
      'agent/tool-2',
      'agent/tool-3',
      'agent/tool-4',
    ]);
    const outcomes = events.filter((e) => e.type === 'ProviderCallFailed' || e.type === 'ProviderCallSucceeded').map(brief);
    expect(outcomes.slice(1, 3)).to.deep.equal([
      ['/agent', 'ProviderCallFailed', 'agent/tool-2/query-0/attempt-1'],
      ['/agent', 'ProviderCallSucceeded', 'agent/tool-2/query-0/attempt-2'],
    ]);
  });

  it('on replay, a tool call with other arguments is a divergence at the tool call, found past its recorded queries', async () => {
    const { store } = await recordedJob();
    const log = MemoryEventLog.open(store);
    const again = await recorderOn(Journal.replay(log, RUN, await byScope(log), { clock: clock() }));
    await again.recorder.model(main([user('take notes')]));
    await again.recorder.callTool('read', { page: 1 });
    expect(await again.recorder.callTool('ask', { q: 'sum?' })).to.deep.equal({ result: 'error: the job has ended', isError: true });
    expect(again.fatal).to.have.length(1);
    const err = again.fatal[0] as AgentDivergedError;
    expect(err).to.be.instanceOf(AgentDivergedError);
    expect([err.index, err.kind, err.mismatch.field]).to.deep.equal([3, 'tool', 'arguments']);
    expect(again.caller.seen).to.have.length(0);
  });
});

describe('external agent on a session suite: worker_restart', () => {
  it("ends the process before it gets the tool's reply; the fresh process gets the notice on its first tool result; the old one is answered no more", async () => {
    const log = MemoryEventLog.open();
    const { recorder, restarts } = await recorderOn(Journal.live(log, RUN, { clock: clock() }), { caseId: 'c2' });
    const old = recorder.nextRound();
    await old.model(main([user('take notes')]));
    expect(await old.callTool('write', { text: 'draft' })).to.deep.equal({ result: 'written', isError: false });
    expect(restarts.map((i) => i.id)).to.deep.equal(['restart']);
    const fresh = recorder.nextRound();
    const before = (await eventsOf(log)).length;
    expect(await old.callTool('write', { text: 'late' })).to.deep.equal({ result: 'error: the job has ended', isError: true });
    expect(await old.model(main([user('late')]))).to.deep.include({ ok: false, code: 'job_ended' });
    expect(await eventsOf(log)).to.have.length(before);
    await fresh.model(main([user('take notes')]));
    // The restart's notice first, then the one due after this read.
    expect(await fresh.callTool('read', { page: 2 })).to.deep.equal({ result: 'page 2\n[host] you were restarted\n[host] page 1 changed', isError: false });
    // Named on from the old process's calls, so no name is used twice.
    expect((await eventsOf(log)).map(brief).slice(-4)).to.deep.equal([
      ['/agent', 'ProviderCallRequested', 'agent/call-2/attempt-1'],
      ['/agent', 'ProviderCallSucceeded', 'agent/call-2/attempt-1'],
      ['/agent', 'ToolCalled', 'agent/tool-2'],
      ['/host', 'FaultInjected', 'changed'],
    ]);
    expect(restarts).to.have.length(1);
  });
});

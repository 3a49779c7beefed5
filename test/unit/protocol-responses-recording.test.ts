// Recording a request in another protocol than chat completions: the agent's body as received is
// an AgentRequestReceived (its blob) beside the translated ProviderCallRequested, and replay and
// resume compare both, so a changed agent request is caught even when it translates the same.
import { expect } from 'chai';
import { canonicalJson, sha256 } from '../../src/core/canonical.js';
import { steppingClock } from '../../src/core/clock.js';
import type { StoredEvent } from '../../src/events/index.js';
import { matchModelRequest, type ModelRequestFacts } from '../../src/harness/external/logic.js';
import { conversationMemory, responsesAdapter } from '../../src/harness/external/protocols/index.js';
import { AgentDivergedError, AgentRecorder } from '../../src/harness/external/recorder.js';
import type { AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';
import { draft, Journal } from '../../src/harness/kernel/journal.js';
import { jobJournal } from '../../src/harness/kernel/ports.js';
import { MemoryEventLog, MemoryStore } from '../../src/log/memory/index.js';
import type { AttemptResult, ModelCaller } from '../../src/providers/caller.js';
import type { ChatRequest } from '../../src/providers/chat.js';
import { requestedData, storedEvent } from '../support/build-events.js';

const RUN = 'run-resp';
const JOB = 'c1:a:1';
const T0 = Date.parse('2025-06-01T09:00:00.000Z');
const TOOL = { type: 'function', name: 'lookup', description: 'Looks up.', parameters: { type: 'object', properties: {} }, strict: true };

class CountingCaller implements ModelCaller {
  readonly seen: ChatRequest[] = [];
  async call(request: ChatRequest): Promise<AttemptResult> {
    this.seen.push(request);
    const data = { content: `answer ${this.seen.length}`, toolCalls: [], finishReason: 'stop', usage: { prompt: 5, completion: 2, total: 7 }, latencyMs: 1 };
    return { ok: true, data };
  }
}

function recorderOn(journal: Journal) {
  const caller = new CountingCaller();
  const fatal: unknown[] = [];
  const job = jobJournal(journal, JOB);
  const recorder = new AgentRecorder({
    journal: job,
    provider: {
      caller,
      model: 'run-model',
      sampling: { temperature: 0, maxTokens: 64 },
      seed: 1,
      policy: { maxAttempts: 2, backoffMs: 0, maxBackoffMs: 0, timeoutMs: 1_000 },
      sleep: async () => {},
      signal: new AbortController().signal,
    },
    hooks: {
      name: 'agent',
      spec: { command: ['node', 'agent.mjs'], cwd: '/nowhere', env: [] },
      arm: 'a',
      task: () => ({ messages: [], tools: [] }),
      runTool: () => ({ result: 'ok', isError: false }),
    },
    tools: [],
    limits: { modelCalls: 10, tokens: null, timeLimitMs: 60_000 },
    onFatal: (err) => fatal.push(err),
  });
  return { recorder, caller, fatal, job };
}

const started = draft('JobStarted', { caseId: 'c1', arm: 'a', repetition: 1, seed: 2 });

/** The Responses body an agent sends, translated as the gateway would. */
function responsesRequest(body: Record<string, unknown>): AgentModelRequest {
  const r = responsesAdapter.parse(body, 'main', conversationMemory());
  if ('refused' in r) throw new Error(r.message);
  return r;
}

const FIRST = { model: 'scripted', instructions: 'Be brief.', input: 'figs?', tools: [TOOL], metadata: { try: 1 } };

async function eventsOf(log: MemoryEventLog): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(RUN)) out.push(e);
  return out;
}

async function recorded() {
  const store = new MemoryStore();
  const log = MemoryEventLog.open(store);
  const { recorder, job } = recorderOn(Journal.live(log, RUN, { clock: steppingClock(T0, 1_000) }));
  recorder.fold([await job.scope.emit(`job/${JOB}`, started)]);
  await recorder.model(responsesRequest(FIRST));
  const events = await eventsOf(log);
  await log.close();
  return { store, events };
}

async function rerun(store: MemoryStore, mode: 'resume' | 'replay') {
  const log = MemoryEventLog.open(store);
  const scopes = new Map<string, StoredEvent[]>();
  for (const e of await eventsOf(log)) scopes.set(e.jobId ?? '', [...(scopes.get(e.jobId ?? '') ?? []), e]);
  const options = { clock: steppingClock(T0 + 3_600_000, 1_000) };
  const journal = mode === 'resume' ? Journal.resume(log, RUN, scopes, options) : Journal.replay(log, RUN, scopes, options);
  const r = recorderOn(journal);
  r.recorder.fold([await r.job.scope.emit(`job/${JOB}`, started)]);
  return { log, ...r };
}

describe('recording a Responses request', () => {
  it('records the body as received (a canonical JSON blob) just before its translation; a chat request records none', async () => {
    const { store, events } = await recorded();
    expect(events.map((e) => e.type)).to.deep.equal(['JobStarted', 'AgentRequestReceived', 'ProviderCallRequested', 'ProviderCallSucceeded']);
    const body = sha256(canonicalJson(FIRST));
    expect(events[1]!.data).to.deep.equal({ call: 'agent/call-1', protocol: 'responses', body });
    expect(events[1]!.actor).to.equal(`job/${JOB}/agent`);
    const log = MemoryEventLog.open(store);
    expect(Buffer.from(await log.blobs(RUN).get(body)).toString('utf8')).to.equal(canonicalJson(FIRST));
    await log.close();

    const chat = MemoryEventLog.open();
    const { recorder } = recorderOn(Journal.live(chat, RUN, { clock: steppingClock(T0, 1_000) }));
    const { protocol: _p, received: _r, ...asChat } = responsesRequest(FIRST);
    await recorder.model(asChat);
    expect((await eventsOf(chat)).map((e) => e.type)).to.deep.equal(['ProviderCallRequested', 'ProviderCallSucceeded']);
  });

  it('replay answers the same request (keys in another order) from the record, without calling the model', async () => {
    const { store } = await recorded();
    const { recorder, caller, fatal, log } = await rerun(store, 'replay');
    const reordered = Object.fromEntries(Object.entries(FIRST).reverse());
    const reply = await recorder.model(responsesRequest(reordered));
    expect(reply.ok && reply.content).to.equal('answer 1');
    expect([caller.seen.length, fatal.length]).to.deep.equal([0, 0]);
    expect(await eventsOf(log)).to.have.length(4);
  });

  it('replay reports a changed body that translates the same (a field kept in the record only) at received.body.<field>', async () => {
    const { store } = await recorded();
    const { recorder, caller, fatal } = await rerun(store, 'replay');
    await recorder.model(responsesRequest({ ...FIRST, store: false }));
    expect(fatal).to.have.length(1);
    const err = fatal[0] as AgentDivergedError;
    expect(err).to.be.instanceOf(AgentDivergedError);
    expect([err.index, err.kind, err.mismatch.field]).to.deep.equal([1, 'model', 'received.body.store']);
    expect(caller.seen).to.have.length(0);
  });

  it('replay answers a request whose record-only fields (metadata, prompt_cache_key, client_metadata) are new from the record, re-emitting the recorded events', async () => {
    const { store, events } = await recorded();
    const { recorder, caller, fatal, log } = await rerun(store, 'replay');
    const reply = await recorder.model(responsesRequest({ ...FIRST, metadata: { try: 2 }, prompt_cache_key: 'session-2', client_metadata: { turn: 'x' } }));
    expect([fatal, caller.seen.length]).to.deep.equal([[], 0]);
    expect(reply.ok && reply.content).to.equal('answer 1');
    // The replay wrote nothing, and what it re-emitted matched the record (else it would have failed).
    expect((await eventsOf(log)).map((e) => e.data)).to.deep.equal(events.map((e) => e.data));
  });

  it('replay reports a changed translation at the translated field first', async () => {
    const { store } = await recorded();
    const { recorder, fatal } = await rerun(store, 'replay');
    await recorder.model(responsesRequest({ ...FIRST, input: 'plums?' }));
    expect((fatal[0] as AgentDivergedError).mismatch.field).to.equal('messages[1]');
  });

  it('resume records the divergence at received.body and goes on live', async () => {
    const { store } = await recorded();
    const { recorder, caller, fatal, log } = await rerun(store, 'resume');
    const reply = await recorder.model(responsesRequest({ ...FIRST, store: false }));
    expect(fatal).to.deep.equal([]);
    expect(caller.seen).to.have.length(1);
    expect(reply.ok && reply.id).to.equal('chatcmpl-evalog-agent-r1-call-1-attempt-1');
    const after = (await eventsOf(log)).slice(4);
    expect(after.map((e) => e.type)).to.deep.equal(['AgentDiverged', 'AgentRequestReceived', 'ProviderCallRequested', 'ProviderCallSucceeded']);
    expect(after[0]!.data).to.deep.include({ index: 1, kind: 'model', field: 'received.body.store' });
    expect(after[1]!.data).to.deep.include({ call: 'agent/r1/call-1' });
  });
});

describe('matchModelRequest with the body as received', () => {
  const body = 'a'.repeat(64);
  const facts: ModelRequestFacts = {
    callId: 'agent/call-1/attempt-1',
    attribution: 'main',
    model: 'run-model',
    messages: ['1'.repeat(64), '2'.repeat(64)],
    tools: ['lookup'],
    params: { max_tokens: 9 },
    received: { call: 'agent/call-1', protocol: 'responses', body },
  };
  const received = (data: Partial<ModelRequestFacts['received'] & object> = {}) =>
    storedEvent('AgentRequestReceived', { call: 'agent/call-1', protocol: 'responses', body, ...data }, { jobId: JOB });
  const requested = (over: Parameters<typeof requestedData>[1] = {}) =>
    storedEvent(
      'ProviderCallRequested',
      requestedData(facts.callId, {
        attribution: 'main',
        model: 'run-model',
        messages: [...facts.messages],
        tools: ['lookup'],
        params: { max_tokens: 9 },
        ...over,
      }),
      {
        jobId: JOB,
      },
    );
  const field = (recorded: StoredEvent, following?: StoredEvent, f: ModelRequestFacts = facts) => matchModelRequest(f, recorded, following)?.field ?? null;

  it('holds the recorded request: the body and its translation', () => {
    expect(field(received(), requested())).to.equal(null);
    // The record ends between the two (the writer died): the body alone is compared.
    expect(field(received())).to.equal(null);
  });

  it('leaves record-only fields out: translated params (prompt_cache_key, user) and body fields (client_metadata, item ids)', () => {
    expect(field(received(), requested({ params: { max_tokens: 9, prompt_cache_key: 'old', user: 'u' } }))).to.equal(null);
    const was = { model: 'm', prompt_cache_key: 'old', input: [{ type: 'message', id: 'msg_1', role: 'user', content: 'figs?' }] };
    const now = { ...was, prompt_cache_key: 'new', client_metadata: { turn: 't' }, input: [{ ...was.input[0]!, id: 'msg_2' }] };
    const facts2 = { ...facts, receivedBody: now };
    expect(matchModelRequest(facts2, received({ body: 'b'.repeat(64) }), requested(), was)).to.equal(null);
    // What the model sees is compared, and named by its path in the body.
    const edited = { ...now, input: [{ ...now.input[0]!, content: 'plums?' }] };
    expect(matchModelRequest({ ...facts, receivedBody: edited }, received({ body: 'b'.repeat(64) }), requested(), was)?.field).to.equal(
      'received.body.input[0].content',
    );
  });

  it('reports an edited translated request, and an edited body as received, each as a divergence', () => {
    expect(field(received(), requested({ messages: [facts.messages[0]!, 'f'.repeat(64)] }))).to.equal('messages[1]');
    expect(field(received(), requested({ params: { max_tokens: 10 } }))).to.equal('params.max_tokens');
    expect(field(received({ body: 'b'.repeat(64) }), requested())).to.equal('received.body');
    expect(matchModelRequest(facts, received({ body: 'b'.repeat(64) }), requested())?.detail).to.equal(
      'the responses request body differs from the recorded one (sha256 bbbbbbbbbbbb, now aaaaaaaaaaaa)',
    );
    expect(field(received({ protocol: 'messages' }), requested())).to.equal('received.protocol');
    expect(field(received({ call: 'agent/call-2' }), requested())).to.equal('received.call');
  });

  it('reports a change of protocol either way as received', () => {
    const { received: _r, ...chatFacts } = facts;
    expect(field(received(), requested(), chatFacts)).to.equal('received');
    expect(field(requested())).to.equal('received');
    expect(field(requested(), undefined, chatFacts)).to.equal(null);
  });
});

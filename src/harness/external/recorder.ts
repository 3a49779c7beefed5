// The job side of the gateway: every model request and tool call an external agent makes becomes
// the job's events, in the order the agent made them. While the job's record lasts (resume,
// replay) the agent's n-th request is matched against the record's n-th and answered from it;
// nothing is sent upstream or run again. At the first mismatch, resume records AgentDiverged and
// goes on live; replay stops with the divergence.
import type { EventOf, StoredEvent, ToolCallRequest } from '../../events/index.js';
import { canonicalJson, sha256 } from '../../core/canonical.js';
import type { ToolSpec } from '../../providers/chat.js';
import { DeterminismViolation } from '../kernel/errors.js';
import { draft } from '../kernel/journal.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import { callWithRetries, messageBlob } from '../provider/index.js';
import type { ExternalAgentHooks } from '../suite/define.js';
import type { Injection, ToolOutcome } from '../suite/types.js';
import { decideWorker } from '../worker/logic.js';
import {
  agentActor,
  agentCallName,
  budgetBreach,
  evolveAgentJob,
  initialAgentJobState,
  matchModelRequest,
  matchToolCall,
  type AgentJobState,
  type Mismatch,
  type ModelRequestFacts,
} from './logic.js';
import { splitChatParams } from './record-only.js';
import { recordedToolCall, sessionBreach, type AgentSession } from './session.js';
import type { AgentJobHandlers, AgentLimits, AgentModelReply, AgentModelRequest, AgentToolReply } from '../kernel/agent-gateway.js';

/** Replay met an agent that asked for something other than its record: reported as a divergence. */
export class AgentDivergedError extends DeterminismViolation {
  override name = 'AgentDivergedError';
  constructor(
    logged: StoredEvent,
    readonly index: number,
    readonly kind: 'model' | 'tool' | 'exit',
    readonly mismatch: Mismatch,
  ) {
    super(logged, logged, [`agent request ${index} (${kind}): ${mismatch.field}`]);
    this.message = `the agent's request ${index} (${kind}) differs from the record at ${mismatch.field}: ${mismatch.detail}`;
  }
}

export interface RecorderInput {
  journal: JobJournal;
  provider: ProviderPort;
  hooks: ExternalAgentHooks;
  /** The tools served over MCP: the task's. */
  tools: readonly ToolSpec[];
  limits: AgentLimits;
  /** A session suite's part: its environment, tools, injections and budgets (see session.ts). */
  session?: AgentSession;
  /** Called once with an error that ends the job (interrupt, divergence on replay, a bug): the agent is stopped. */
  onFatal(err: unknown): void;
  /** A session's worker_restart was recorded: the agent's process is ended before it gets the tool's reply. */
  onRestart?(injection: Injection): void;
}

/** Records an external agent's requests as its job's events; the gateway's handlers of one job. */
export class AgentRecorder implements AgentJobHandlers {
  private chain: Promise<unknown> = Promise.resolve();
  private s: AgentJobState = initialAgentJobState;
  /** The agent's requests so far (model and tool), for divergence reports. */
  private index = 0;
  private fatal: unknown = null;
  private readonly toolSpecs: readonly ToolSpec[];
  /** The agent's process the requests are taken from; a restarted session agent's old one is answered no more. */
  private round = 0;

  constructor(private readonly input: RecorderInput) {
    this.toolSpecs = input.tools;
  }

  /** The fold of what was recorded so far. */
  get state(): AgentJobState {
    return this.s;
  }

  /** The error that ended the job, if one did. */
  get failure(): unknown {
    return this.fatal;
  }

  /** Folds events the job emitted outside the recorder (JobStarted, AgentLaunched) or that it reads back. */
  fold(events: readonly StoredEvent[]): void {
    this.s = events.reduce(evolveAgentJob, this.s);
    this.input.session?.fold(events);
  }

  tools(): readonly ToolSpec[] {
    return this.toolSpecs;
  }

  model(request: AgentModelRequest): Promise<AgentModelReply> {
    return this.modelOf(this.round, request);
  }

  callTool(name: string, args: unknown): Promise<AgentToolReply> {
    return this.toolOf(this.round, name, args);
  }

  /**
   * The handlers of the agent's next process: the requests of an earlier one (a session agent
   * restarted by its scenario) are answered as an ended job's and recorded nowhere.
   */
  nextRound(): AgentJobHandlers {
    const round = ++this.round;
    return { tools: () => this.tools(), model: (r) => this.modelOf(round, r), callTool: (n, a) => this.toolOf(round, n, a) };
  }

  private modelOf(round: number, request: AgentModelRequest): Promise<AgentModelReply> {
    const ended: AgentModelReply = { ok: false, status: 503, code: 'job_ended', message: 'the job has ended' };
    return this.serial(() => (round === this.round ? this.modelNow(request) : Promise.resolve(ended)), ended);
  }

  private toolOf(round: number, name: string, args: unknown): Promise<AgentToolReply> {
    const ended: AgentToolReply = { result: 'error: the job has ended', isError: true };
    return this.serial(() => (round === this.round ? this.toolNow(name, args) : Promise.resolve(ended)), ended);
  }

  /** Waits for the requests in hand to be recorded (the process has ended; nothing new arrives). */
  settled(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  /**
   * Checks the next recorded event against what the agent is about to do; on a mismatch, replay
   * fails and resume leaves the record (AgentDiverged) so the rest goes live. Returns whether the
   * record still holds this step. `recordedStep` is the recorded event the step is compared with
   * (the next one, unless the step's record starts with other events).
   */
  async diverges(
    kind: 'model' | 'tool' | 'exit',
    check: (recorded: StoredEvent) => Mismatch | null,
    recordedStep: () => StoredEvent | undefined = () => this.input.journal.scope.peek(),
  ): Promise<boolean> {
    const { scope } = this.input.journal;
    const recorded = recordedStep();
    if (!recorded) return false;
    const mismatch = check(recorded);
    if (!mismatch) return false;
    // A request's index is already counted; an exit takes the place of the request the record holds next.
    const index = kind === 'exit' ? this.index + 1 : this.index;
    if (!this.input.journal.resuming) throw new AgentDivergedError(recorded, index, kind, mismatch);
    const diverged = draft('AgentDiverged', { index, kind, field: mismatch.field, detail: mismatch.detail });
    const tail = abandonedTail(scope);
    // An earlier resume that diverged here the same way went on live from here: follow its record
    // (its calls are answered from the log, not sent again). Otherwise leave the whole record.
    const same = tail.findIndex((e) => e.type === 'AgentDiverged' && canonicalJson(e.data) === canonicalJson(diverged.data));
    const left = same >= 0 ? tail.slice(0, same) : tail;
    // Rounds named in the part left behind: counting them keeps this round's names off theirs
    // (else a call would take their recorded outcome).
    this.fold(left.filter((e) => e.type === 'AgentDiverged'));
    scope.passOver(left.length);
    this.fold([await scope.emit(this.actor, diverged)]);
    return true;
  }

  get actor(): string {
    return agentActor(this.input.journal.jobId);
  }

  private serial<T>(work: () => Promise<T>, ended: T): Promise<T> {
    const next = this.chain.then(async () => {
      if (this.fatal !== null) return ended;
      try {
        return await work();
      } catch (err) {
        this.fail(err);
        return ended;
      }
    });
    this.chain = next;
    return next;
  }

  private fail(err: unknown): void {
    if (this.fatal !== null) return;
    this.fatal = err;
    this.input.onFatal(err);
  }

  private async modelNow(request: AgentModelRequest): Promise<AgentModelReply> {
    const { journal, limits, session } = this.input;
    this.index += 1;
    // Between turns, as the session worker does before each main call.
    if (session && request.attribution === 'main') this.foldOwn(await session.beforeMain());
    const breach = session
      ? sessionBreach(session.state, session.settings, { attribution: request.attribution, tokens: this.s.tokens, tokenLimit: limits.tokens })
      : budgetBreach(this.s, limits);
    if (breach) {
      if (this.s.budget === null) {
        await this.diverges('model', (r) =>
          r.type === 'BudgetExhausted' ? null : { field: 'kind', detail: `the record holds ${r.type} here, the agent ran out of budget` },
        );
        this.fold([await journal.scope.emit(this.actor, draft('BudgetExhausted', breach))]);
      }
      return { ok: false, status: 403, code: 'budget_exhausted', message: `evalog: the job's ${breach.budget} budget (${breach.limit}) is used up` };
    }
    // A session's calls spend its budgets with every retry: attempts and timeout are capped by them.
    const provider = session ? session.port(request.attribution) : this.input.provider;
    const messages = request.messages;
    const refs = messages.map((m) => messageBlob(m).ref);
    const name = () => agentCallName('call', this.s.modelCalls + 1, this.s.epoch);
    const received = receivedBody(request);
    // What the record holds here, for the fields a protocol keeps in the record only (record-only.ts).
    const recordedRequest = await this.recordedRequest(received?.ref);
    const facts = (): ModelRequestFacts => ({
      callId: `${name()}/attempt-1`,
      attribution: request.attribution,
      model: provider.model,
      messages: refs,
      tools: request.tools.map((t) => t.name),
      params: request.params,
      ...(received ? { received: { call: name(), protocol: received.protocol, body: received.ref }, receivedBody: request.received } : {}),
    });
    const diverged = await this.diverges('model', (r) => matchModelRequest(facts(), r, journal.scope.peekAfter(1), recordedRequest.body));
    // A request that matched its record differs from it in record-only fields at most: the events
    // re-emitted are the recorded ones (their body blob, their params), as replay requires. Past
    // the record, or after a divergence, the request is recorded as sent.
    const params = diverged ? request.params : recordedRequest.keep(request.params);
    if (received && !diverged && recordedRequest.bodyRef !== undefined) {
      received.ref = recordedRequest.bodyRef;
      journal.storedBlobs.add(received.ref); // it was read from the store
    }
    if (received) {
      // While replaying, the event is recorded, so its blob is already stored.
      if (!journal.storedBlobs.has(received.ref) && !journal.scope.replaying) {
        await journal.blobs.put(received.bytes);
        journal.storedBlobs.add(received.ref);
      }
      const data = facts().received!;
      this.fold([await journal.scope.emit(this.actor, draft('AgentRequestReceived', data))]);
    }
    const site = { actor: this.actor, name: name(), attribution: request.attribution };
    const native = request.native ? { native: request.native } : {};
    const out = await callWithRetries({ journal, provider, site, messages, tools: request.tools, params, ...native });
    this.fold(out.events);
    const last = out.events.at(-1)!;
    if (last.type === 'ProviderCallSucceeded') {
      const d = last.data;
      return {
        ok: true,
        id: `chatcmpl-evalog-${d.callId.replaceAll('/', '-')}`,
        model: d.responseModel ?? provider.model,
        content: d.content,
        toolCalls: d.toolCalls,
        finishReason: d.finishReason,
        usage: d.usage,
        // A pass-through answer goes back as received (from the log on resume and replay).
        ...(d.answer ? { native: { contentType: d.answer.contentType, body: Buffer.from(await journal.blobs.get(d.answer.blob)) } } : {}),
      };
    }
    if (last.type === 'ProviderCallFailed') {
      const d = last.data;
      return {
        ok: false,
        status: 502,
        code: `upstream_${d.kind}`,
        message: `evalog: the model call failed after ${out.state.attempts} attempt(s): ${d.message}`,
      };
    }
    throw new Error(`a model call ended on ${last.type}`);
  }

  private async toolNow(name: string, args: unknown): Promise<AgentToolReply> {
    const { journal, hooks, session } = this.input;
    this.index += 1;
    const argsText = args === undefined ? '{}' : canonicalJson(args);
    const callId = agentCallName('tool', this.s.toolCalls + 1, this.s.epoch);
    // A session tool's queries are recorded before its ToolCalled: the call is compared past them.
    const diverged = await this.diverges(
      'tool',
      (r) => matchToolCall(callId, name, argsText, r),
      session ? () => recordedToolCall(journal.scope, callId) : undefined,
    );
    const call: ToolCallRequest = { id: `mcp-${this.s.toolCalls + 1}`, name, arguments: argsText };
    if (session) {
      // A session's tool is pure and its queries are answered from the record, so a recorded call
      // is run again and the journal matches what it records (the queries and injections after
      // it too); live, the same body runs the tool.
      const id = agentCallName('tool', this.s.toolCalls + 1, this.s.epoch);
      const run = await session.tool(id, call);
      this.foldOwn(run.events);
      if (run.restart) this.input.onRestart?.(run.restart);
      return run.reply;
    }
    const recorded = diverged ? undefined : journal.scope.peek();
    const run = () => hooks.runTool(name, argsText, { artifact: this.s.artifact, revision: this.s.revisions });
    const outcome =
      recorded?.type === 'ToolCalled'
        ? await this.recordedOutcome(recorded, run)
        : this.toolSpecs.some((t) => t.name === name)
          ? await run()
          : { result: `error: unknown tool ${JSON.stringify(name)}; the tools are ${this.toolSpecs.map((t) => t.name).join(', ')}`, isError: true };
    // The callId of the agent's own tool call, fresh after a divergence too.
    const id = agentCallName('tool', this.s.toolCalls + 1, this.s.epoch);
    for (const d of decideWorker({ type: 'RecordTool', callId: id, call, outcome, revision: this.s.revisions + 1 })) {
      this.fold([await journal.scope.emit(this.actor, d)]);
    }
    return { result: outcome.result, isError: outcome.isError };
  }

  /**
   * The recorded request at the record's next position, as far as record-only fields need it: the
   * recorded body (parsed, when its hash is not the agent's now) and a function that gives the
   * agent's params the recorded values of their record-only keys.
   */
  private async recordedRequest(ref: string | undefined): Promise<{
    body?: unknown;
    bodyRef?: string;
    keep(params: Record<string, unknown>): Record<string, unknown>;
  }> {
    const { scope, blobs } = this.input.journal;
    const first = scope.peek();
    const requested = first?.type === 'AgentRequestReceived' ? scope.peekAfter(1) : first;
    const keep = (params: Record<string, unknown>) =>
      requested?.type === 'ProviderCallRequested' ? { ...splitChatParams(params).compared, ...splitChatParams(requested.data.params).recordOnly } : params;
    if (first?.type !== 'AgentRequestReceived' || ref === undefined || first.data.body === ref) return { keep };
    try {
      const body: unknown = JSON.parse(Buffer.from(await blobs.get(first.data.body)).toString('utf8'));
      return { body, bodyRef: first.data.body, keep };
    } catch {
      // A recorded body that cannot be read back: compared by its hash alone (received.body).
      return { keep };
    }
  }

  /** Folds events the session part has folded already (a tool call's, the injections between turns). */
  private foldOwn(events: readonly StoredEvent[]): void {
    this.s = events.reduce(evolveAgentJob, this.s);
  }

  /**
   * A recorded tool call is answered from the record (its result, and the artifact revision logged
   * right after it). Where the record ends at the ToolCalled, the process died before the revision
   * the call saved (if it saved one) was logged: the suite's tool, pure like every tool hook (the
   * in-process worker runs them again on every replay), is run again for it, so the artifact is not
   * lost to the kill.
   */
  private async recordedOutcome(recorded: EventOf<'ToolCalled'>, run: () => ToolOutcome | Promise<ToolOutcome>): Promise<ToolOutcome> {
    const base = { result: recorded.data.result, isError: recorded.data.isError };
    // peek() is the ToolCalled; the revision it saved, if any, is the event after it.
    const next = this.input.journal.scope.peekAfter(1);
    if (next?.type === 'ArtifactRevised') return { ...base, artifact: next.data.content };
    if (next !== undefined || recorded.data.isError) return base;
    const { artifact } = await run();
    return artifact === undefined ? base : { ...base, artifact };
  }
}

/**
 * The agent's body as the blob it is recorded as, for a protocol other than chat completions (a
 * chat agent's body is its translated request, recorded as it always was). Canonical JSON: the
 * same request in another key order or spacing is the same request.
 */
function receivedBody(request: AgentModelRequest): { protocol: 'responses' | 'messages'; bytes: Buffer; ref: string } | null {
  const { protocol, received } = request;
  if (protocol === undefined || protocol === 'chat' || received === undefined) return null;
  const bytes = Buffer.from(canonicalJson(received));
  return { protocol, bytes, ref: sha256(bytes) };
}

/** The recorded events from the next one to the record's end (what abandonRecord leaves unmatched). */
function abandonedTail(scope: JobJournal['scope']): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let e = scope.peek(); e !== undefined; e = scope.peekAfter(out.length)) out.push(e);
  return out;
}

// The session half of an external agent's job: what the built-in session worker does around its
// own loop, done around an agent that owns its loop. The suite's environment is the fold of every
// job event (as the worker's is); each tool call over MCP is one tool of the session (the suite's
// tool, its queries run by the harness, the injections due after a tool); the injections due
// between turns are recorded before the agent's next main request; the cell's budgets are checked
// before every model request.
//
// Delivery: the agent owns its conversation, so the host cannot put a message into it. A host
// notice is appended to the next tool result the agent receives (`\n[host] <notice>`). A
// context_switch is recorded and its notice delivered, but the agent's conversation stays as it
// is. A worker_restart is recorded and handed to the caller, which ends the agent's process and
// starts a fresh one on the same task.
import type { DataOf, StoredEvent, ToolCallRequest } from '../../events/index.js';
import type { ScopeJournal } from '../kernel/journal.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import { recordInjections, runSessionTool, startState } from '../session/effects.js';
import { evolveSession, type SessionState } from '../session/logic.js';
import { callPort } from '../session/record.js';
import type { SessionHooks } from '../suite/define.js';
import type { Injection, SessionSettings } from '../suite/types.js';
import type { AgentAttribution, AgentLimits, AgentToolReply } from '../kernel/agent-gateway.js';

type Budget = DataOf<'BudgetExhausted'>;

/**
 * The cell's settings with an agent's own limits in place of the cell's model-call budget and
 * deadline (they are the same numbers unless the agent's config sets its own), so queries, retries
 * and timeouts are capped by the limits the proxy enforces.
 */
export function settingsWithLimits(settings: SessionSettings, limits: AgentLimits): SessionSettings {
  return { ...settings, budget: { ...settings.budget, modelCalls: limits.modelCalls, deadlineMs: limits.timeLimitMs } };
}

/** The budget an agent's model request would break now, or null when it may go: the session worker's checks, plus tokens. */
export function sessionBreach(
  s: SessionState,
  settings: SessionSettings,
  o: { attribution: AgentAttribution; tokens: number; tokenLimit: number | null },
): Budget | null {
  const b = settings.budget;
  const elapsed = s.startedAtMs === null ? 0 : Math.max(0, s.lastAtMs - s.startedAtMs);
  if (o.attribution === 'main' && s.mainCalls >= b.mainCalls) return { budget: 'main_calls', limit: b.mainCalls, used: s.mainCalls };
  if (s.modelCalls >= b.modelCalls) return { budget: 'model_calls', limit: b.modelCalls, used: s.modelCalls };
  if (o.tokenLimit !== null && o.tokens >= o.tokenLimit) return { budget: 'tokens', limit: o.tokenLimit, used: o.tokens };
  if (elapsed >= b.deadlineMs) return { budget: 'deadline', limit: b.deadlineMs, used: Math.round(elapsed) };
  return null;
}

/** Attempts a model request may make: the cell's retries, capped by what the budgets it spends have left (each retry is a call). */
export function sessionAttempts(s: SessionState, settings: SessionSettings, attribution: AgentAttribution): number {
  const b = settings.budget;
  const main = attribution === 'main' ? b.mainCalls - s.mainCalls : Number.POSITIVE_INFINITY;
  return Math.min(settings.provider.maxAttempts, main, b.modelCalls - s.modelCalls);
}

/**
 * The recorded ToolCalled of the tool call `name`: a session tool's queries (and the injections
 * at them) are recorded before it, so they are looked past. Undefined past the record.
 */
export function recordedToolCall(scope: ScopeJournal, name: string): StoredEvent | undefined {
  const query = `${name}/query-`;
  const ofQueries = (e: StoredEvent) => {
    const id = e.type === 'FaultInjected' ? e.data.target : (e.data as { callId?: unknown }).callId;
    return typeof id === 'string' && id.startsWith(query);
  };
  for (let k = 0; ; k++) {
    const e = scope.peekAfter(k);
    if (!e || !ofQueries(e)) return e;
  }
}

/** What the session part of a job works with. */
export interface AgentSessionInput {
  journal: JobJournal;
  /** The cell's provider port: its model, sampling (the queries'), timeouts and retries. */
  provider: ProviderPort;
  /** The session's hooks, their settings already `settingsWithLimits`. */
  session: SessionHooks;
  /** Actor of the agent's events: its tool calls and their queries are its own. */
  actor: string;
}

/** The session state of an external agent's job, and the session's part of each of its requests. */
export class AgentSession {
  private s: SessionState;
  /** Host notices recorded since the last tool result the agent received. */
  private notices: string[] = [];

  constructor(private readonly o: AgentSessionInput) {
    this.s = startState(o.session);
  }

  /** The fold of the job's events so far (its environment is the suite's). */
  get state(): SessionState {
    return this.s;
  }

  get settings(): SessionSettings {
    return this.o.session.settings;
  }

  /** Folds events the job emitted outside a tool call (JobStarted, the agent's model calls, injections). */
  fold(events: readonly StoredEvent[]): void {
    const fold = evolveSession(this.o.session.evolveEnvironment);
    for (const e of events) {
      this.s = fold(this.s, e);
      if (e.type === 'FaultInjected' && e.data.notice !== null) this.notices.push(e.data.notice);
    }
  }

  /** The provider port of an agent's model request: attempts and timeout capped by the budgets and the deadline. */
  port(attribution: AgentAttribution): ProviderPort {
    return callPort(this.o.provider, this.s, this.o.session, sessionAttempts(this.s, this.settings, attribution));
  }

  /** Records the injections due between turns (before a main request), as the worker does between batches. */
  async beforeMain(): Promise<StoredEvent[]> {
    const { journal, provider, session } = this.o;
    const injections = session.injectionsDue(this.s.environment, this.s.fired, { type: 'turn' });
    if (injections.length === 0) return [];
    const out = await recordInjections({ journal, provider, session, state: this.s, injections });
    this.fold(out);
    return out;
  }

  /**
   * One tool call as one tool of the session, named `name`; its reply carries the notices not yet
   * delivered. `restart` is the worker_restart recorded after it, for the caller to carry out.
   */
  async tool(name: string, call: ToolCallRequest): Promise<{ events: StoredEvent[]; reply: AgentToolReply; restart: Injection | null }> {
    const { journal, provider, session, actor } = this.o;
    const events: StoredEvent[] = [];
    const run = await runSessionTool({ journal, provider, session, state: this.s, actor }, name, call, events);
    // runSessionTool folded its own events; only their notices are this part's to keep.
    this.s = run.state;
    for (const e of events) if (e.type === 'FaultInjected' && e.data.notice !== null) this.notices.push(e.data.notice);
    const called = events.find((e) => e.type === 'ToolCalled');
    if (called?.type !== 'ToolCalled') throw new Error(`tool call ${name} recorded no ToolCalled`);
    const reply = { result: called.data.result, isError: called.data.isError };
    // A restart's reply goes to a process being ended: the notices wait for the fresh one's first tool result.
    if (run.restart) return { events, reply, restart: run.restart };
    const delivered = { ...reply, result: reply.result + this.notices.map((n) => `\n[host] ${n}`).join('') };
    this.notices = [];
    return { events, reply: delivered, restart: null };
  }
}

import type { Attribution, DataOf, StoredEvent, ToolCallRequest } from '../../events/index.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { draft, type AnyDraft } from '../kernel/journal.js';
import { assertNever } from '../../core/never.js';
import type { Injection, SessionSettings, SideEffect } from '../suite/types.js';

type StopReason = DataOf<'WorkerStopped'>['reason'];
type Budget = DataOf<'BudgetExhausted'>;

/** A session worker's state: a fold of its job's events, so a restart rebuilds it from the log. */
export interface SessionState<E = unknown> {
  /** System prompt and task: a context switch starts the new window from these. */
  startMessages: ChatMessage[];
  messages: ChatMessage[];
  tools: ToolSpec[];
  environment: E;
  /** seq of JobStarted: a restart reads the job's events from here. */
  fromSeq: number;
  startedAtMs: number | null;
  lastAtMs: number;
  /** Main replies received (names the next main call `worker/turn-N`). */
  turns: number;
  /** Attempts sent, per budget: main only, and every attribution. */
  mainCalls: number;
  modelCalls: number;
  attribution: Record<string, Attribution>;
  /** Query batches sent; a batch is named by its tool call, so a new name is a new batch. */
  queryBatches: number;
  lastBatch: string | null;
  /** Tool calls of the last main reply; a call's index here names its effect. */
  batch: ToolCallRequest[];
  pending: ToolCallRequest[];
  /** Host notices held back until the tool batch is answered (a tool reply must follow its call). */
  notices: string[];
  fired: string[];
  submitted: boolean;
  answered: boolean;
  answer: string | null;
  lastFailure: DataOf<'ProviderCallFailed'> | null;
  budget: Budget | null;
  stopped: StopReason | null;
}

/** The loop's next step. */
export type SessionStep =
  | { type: 'call'; maxAttempts: number }
  | { type: 'tools' }
  | { type: 'inject'; injections: Injection[] }
  | { type: 'stop'; reason: StopReason; budget: Budget | null }
  | { type: 'done' };

/** Commands of the session worker and its host. */
export type SessionCommand =
  | { type: 'RecordTool'; callId: string; call: ToolCallRequest; result: string; isError: boolean; effects: readonly SideEffect[] }
  | { type: 'Inject'; injection: Injection }
  | { type: 'Stop'; reason: StopReason; budget: Budget | null; turns: number; answer: string | null };

/** The start state, before JobStarted is folded in. */
export function initialSessionState<E>(messages: ChatMessage[], tools: ToolSpec[], environment: E): SessionState<E> {
  return {
    startMessages: messages,
    messages,
    tools,
    environment,
    fromSeq: 1,
    startedAtMs: null,
    lastAtMs: 0,
    turns: 0,
    mainCalls: 0,
    modelCalls: 0,
    attribution: {},
    queryBatches: 0,
    lastBatch: null,
    batch: [],
    pending: [],
    notices: [],
    fired: [],
    submitted: false,
    answered: false,
    answer: null,
    lastFailure: null,
    budget: null,
    stopped: null,
  };
}

/** Decides the events of a command. */
export function decideSession(cmd: SessionCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'RecordTool':
      return [
        draft('ToolCalled', {
          callId: cmd.callId,
          toolCallId: cmd.call.id,
          name: cmd.call.name,
          arguments: cmd.call.arguments,
          result: cmd.result,
          isError: cmd.isError,
        }),
        ...cmd.effects.map((x) =>
          draft('EnvironmentChanged', { callId: cmd.callId, effect: x.effect, target: x.target, value: x.value, terminal: x.terminal }),
        ),
      ];
    case 'Inject': {
      const i = cmd.injection;
      return [draft('FaultInjected', { injectionId: i.id, kind: i.kind, target: i.target, detail: i.detail, notice: i.notice, mutation: i.mutation })];
    }
    case 'Stop':
      return [
        ...(cmd.budget ? [draft('BudgetExhausted', cmd.budget)] : []),
        draft('WorkerStopped', { reason: cmd.reason, turns: cmd.turns, answer: cmd.answer }),
      ];
    default:
      return assertNever(cmd);
  }
}

const hostMessage = (text: string): ChatMessage => ({ role: 'user', content: `[host] ${text}` });

/** Folds one job event into the state; the suite's fold keeps the environment. */
export function evolveSession<E>(evolveEnvironment: (env: E, e: StoredEvent) => E) {
  return (state: SessionState<E>, e: StoredEvent): SessionState<E> => {
    const s: SessionState<E> = { ...state, environment: evolveEnvironment(state.environment, e), lastAtMs: Date.parse(e.at) };
    switch (e.type) {
      case 'JobStarted':
        return { ...s, fromSeq: e.seq, startedAtMs: s.lastAtMs };
      case 'ProviderCallRequested': {
        const d = e.data;
        // A batch is the harness's queries of one tool call; an external agent's own `query` calls are not one.
        const at = d.attribution === 'query' ? d.callId.lastIndexOf('/query-') : -1;
        const batch = at >= 0 ? d.callId.slice(0, at) : null;
        const newBatch = batch !== null && batch !== s.lastBatch;
        return {
          ...s,
          modelCalls: s.modelCalls + 1,
          mainCalls: s.mainCalls + (d.attribution === 'main' ? 1 : 0),
          attribution: { ...s.attribution, [d.callId]: d.attribution },
          queryBatches: s.queryBatches + (newBatch ? 1 : 0),
          lastBatch: batch ?? s.lastBatch,
        };
      }
      case 'ProviderCallSucceeded': {
        // Query replies reach the conversation through their tool's result, not as turns.
        if (s.attribution[e.data.callId] !== 'main') return s;
        const calls = e.data.toolCalls;
        const message: ChatMessage =
          calls.length > 0
            ? {
                role: 'assistant',
                content: e.data.content,
                tool_calls: calls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })),
              }
            : { role: 'assistant', content: e.data.content };
        return {
          ...s,
          turns: s.turns + 1,
          messages: [...s.messages, message],
          batch: calls,
          pending: calls,
          answered: calls.length === 0,
          answer: calls.length === 0 ? e.data.content : s.answer,
          lastFailure: null,
        };
      }
      case 'ProviderCallFailed':
        return s.attribution[e.data.callId] === 'main' ? { ...s, lastFailure: e.data } : s;
      case 'ToolCalled': {
        const pending = s.pending.filter((p) => p.id !== e.data.toolCallId);
        const reply: ChatMessage = { role: 'tool', tool_call_id: e.data.toolCallId, content: e.data.result };
        const flush = pending.length === 0 ? s.notices.map(hostMessage) : [];
        return { ...s, pending, messages: [...s.messages, reply, ...flush], notices: pending.length === 0 ? [] : s.notices };
      }
      case 'EnvironmentChanged':
        return e.data.terminal ? { ...s, submitted: true } : s;
      case 'FaultInjected': {
        const fired = [...s.fired, e.data.injectionId];
        const notice = e.data.notice;
        // A new context window: the start messages and the host's notes, nothing else of the old one.
        if (e.data.kind === 'context_switch') return { ...s, fired, messages: [...s.startMessages, ...(notice ? [hostMessage(notice)] : [])], notices: [] };
        if (notice === null) return { ...s, fired };
        return s.pending.length > 0 ? { ...s, fired, notices: [...s.notices, notice] } : { ...s, fired, messages: [...s.messages, hostMessage(notice)] };
      }
      case 'BudgetExhausted':
        return { ...s, budget: e.data };
      case 'WorkerStopped':
        return { ...s, stopped: e.data.reason };
      default:
        return s;
    }
  };
}

/**
 * The loop's policy: tools before anything else, then the end of the task, then injections due
 * between batches, then the budget (checked before every main call), then another main call.
 */
export function nextSessionStep<E>(s: SessionState<E>, settings: SessionSettings, dueAtTurn: readonly Injection[]): SessionStep {
  if (s.stopped) return { type: 'done' };
  if (s.lastFailure) return { type: 'stop', reason: 'provider_failed', budget: null };
  if (s.pending.length > 0) return { type: 'tools' };
  if (s.submitted || s.answered) return { type: 'stop', reason: 'answered', budget: null };
  if (dueAtTurn.length > 0) return { type: 'inject', injections: [...dueAtTurn] };
  const b = settings.budget;
  const elapsed = s.startedAtMs === null ? 0 : Math.max(0, s.lastAtMs - s.startedAtMs);
  if (s.mainCalls >= b.mainCalls) return { type: 'stop', reason: 'turn_cap', budget: { budget: 'main_calls', limit: b.mainCalls, used: s.mainCalls } };
  if (s.modelCalls >= b.modelCalls) return { type: 'stop', reason: 'turn_cap', budget: { budget: 'model_calls', limit: b.modelCalls, used: s.modelCalls } };
  if (elapsed >= b.deadlineMs) return { type: 'stop', reason: 'time_limit', budget: { budget: 'deadline', limit: b.deadlineMs, used: Math.round(elapsed) } };
  // Retries spend the same budgets, so a call may not try more often than either has left.
  const maxAttempts = Math.min(settings.provider.maxAttempts, b.mainCalls - s.mainCalls, b.modelCalls - s.modelCalls);
  return { type: 'call', maxAttempts };
}

/** Attempts a query may make now, 0 when the model-call budget or the deadline is spent. */
export function queryAllowance<E>(s: SessionState<E>, settings: SessionSettings): number {
  const elapsed = s.startedAtMs === null ? 0 : s.lastAtMs - s.startedAtMs;
  if (elapsed >= settings.budget.deadlineMs) return 0;
  return Math.max(0, Math.min(settings.provider.maxAttempts, settings.budget.modelCalls - s.modelCalls));
}

/** Causal name of the tool call at `index` of the current batch. */
export function toolCallName(s: SessionState<unknown>, call: ToolCallRequest): string {
  return `worker/turn-${s.turns}/tool-${s.batch.findIndex((c) => c.id === call.id)}`;
}

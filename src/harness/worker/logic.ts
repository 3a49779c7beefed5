import type { DataOf, StoredEvent, ToolCallRequest } from '../../events/index.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import { draft, type AnyDraft } from '../kernel/journal.js';
import { assertNever } from '../../core/never.js';
import { sha256 } from '../../core/canonical.js';
import type { WorkerStopRule } from '../suite/stop-rule.js';
import type { ToolOutcome, WorkerLimits } from '../suite/types.js';

type StopReason = DataOf<'WorkerStopped'>['reason'];

/** The worker's state: a fold of its own events. */
export interface WorkerState {
  messages: ChatMessage[];
  tools: ToolSpec[];
  startedAtMs: number;
  lastAtMs: number;
  turns: number;
  pending: ToolCallRequest[];
  answer: string | null;
  answered: boolean;
  /** Text of the last reply, tool calls or not (what a stop rule with `answer: 'last_reply'` records). */
  lastText: string | null;
  artifact: string | null;
  /** Revision 1, kept to grade the first attempt as well as the last. */
  firstArtifact: string | null;
  revisions: number;
  lastFailure: DataOf<'ProviderCallFailed'> | null;
  stopped: StopReason | null;
}

/** The worker's next step. */
export type WorkerStep = { type: 'call' } | { type: 'tools' } | { type: 'stop'; reason: StopReason } | { type: 'done' };

/** Commands of the worker. */
export type WorkerCommand =
  | { type: 'RecordTool'; callId: string; call: ToolCallRequest; outcome: ToolOutcome; revision: number }
  | { type: 'Stop'; reason: StopReason; turns: number; answer: string | null };

/** The start state, from the worker's first messages and the time it was handed the task. */
export function initialWorkerState(messages: ChatMessage[], tools: ToolSpec[], startedAtMs: number): WorkerState {
  return {
    messages,
    tools,
    startedAtMs,
    lastAtMs: startedAtMs,
    turns: 0,
    pending: [],
    answer: null,
    answered: false,
    lastText: null,
    artifact: null,
    firstArtifact: null,
    revisions: 0,
    lastFailure: null,
    stopped: null,
  };
}

/** Decides the events of a command. */
export function decideWorker(cmd: WorkerCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'RecordTool': {
      const called = draft('ToolCalled', {
        callId: cmd.callId,
        toolCallId: cmd.call.id,
        name: cmd.call.name,
        arguments: cmd.call.arguments,
        result: cmd.outcome.result,
        isError: cmd.outcome.isError,
      });
      if (cmd.outcome.artifact === undefined) return [called];
      return [called, draft('ArtifactRevised', { revision: cmd.revision, content: cmd.outcome.artifact, sha256: sha256(cmd.outcome.artifact) })];
    }
    case 'Stop':
      return [draft('WorkerStopped', { reason: cmd.reason, turns: cmd.turns, answer: cmd.answer })];
    default:
      return assertNever(cmd);
  }
}

/** Folds one of the worker's events into its state. */
export function evolveWorker(s: WorkerState, e: StoredEvent): WorkerState {
  const at = Date.parse(e.at);
  switch (e.type) {
    case 'ProviderCallSucceeded': {
      const toolCalls = e.data.toolCalls;
      const message: ChatMessage =
        toolCalls.length > 0
          ? {
              role: 'assistant',
              content: e.data.content,
              tool_calls: toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })),
            }
          : { role: 'assistant', content: e.data.content };
      return {
        ...s,
        lastAtMs: at,
        turns: s.turns + 1,
        messages: [...s.messages, message],
        pending: toolCalls,
        answered: toolCalls.length === 0,
        answer: toolCalls.length === 0 ? e.data.content : s.answer,
        lastText: e.data.content,
        lastFailure: null,
      };
    }
    case 'ProviderCallFailed':
      return { ...s, lastAtMs: at, lastFailure: e.data };
    case 'ToolCalled':
      return {
        ...s,
        lastAtMs: at,
        pending: s.pending.filter((p) => p.id !== e.data.toolCallId),
        messages: [...s.messages, { role: 'tool', tool_call_id: e.data.toolCallId, content: e.data.result }],
      };
    case 'ArtifactRevised':
      return {
        ...s,
        lastAtMs: at,
        artifact: e.data.content,
        firstArtifact: e.data.revision === 1 ? e.data.content : s.firstArtifact,
        revisions: e.data.revision,
      };
    case 'WorkerStopped':
      return { ...s, lastAtMs: at, stopped: e.data.reason };
    default:
      return { ...s, lastAtMs: at };
  }
}

/**
 * The loop's policy: answer, limits, tools, or another model turn. The suite's stop rule, when it
 * has one, is asked before the answer and the harness's limits: an answer that arrived is an
 * answer unless the rule says the worker had stopped before it could end (an upstream executor's
 * limit, say). The deadline is not the decider's: it is the machine's timer (a call in flight then
 * is aborted and recorded so; one not yet started is not started), so a resumed job's downtime
 * never counts against it.
 */
export function nextWorkerStep(s: WorkerState, limits: WorkerLimits, rule?: WorkerStopRule): WorkerStep {
  if (s.stopped) return { type: 'done' };
  if (s.lastFailure) return { type: 'stop', reason: s.lastFailure.stoppedBy === 'deadline' ? 'deadline' : 'provider_failed' };
  if (rule?.stops({ turns: s.turns, pendingTools: s.pending.length > 0, answered: s.answered })) return { type: 'stop', reason: rule.reason };
  if (s.answered) return { type: 'stop', reason: 'answered' };
  if (s.pending.length > 0) return { type: 'tools' };
  if (s.turns >= limits.turnCap) return { type: 'stop', reason: 'turn_cap' };
  return { type: 'call' };
}

/** The text a stop records: the answer, or the last reply's text when the suite's rule stopped it and reports that. */
export function stopAnswer(s: WorkerState, reason: StopReason, rule?: WorkerStopRule): string | null {
  return rule !== undefined && reason === rule.reason && rule.answer === 'last_reply' ? s.lastText : s.answer;
}

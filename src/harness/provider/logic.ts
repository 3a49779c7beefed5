import type { DataOf, FailureKind, NativeProtocol, StoredEvent } from '../../events/index.js';
import { draft, type AnyDraft } from '../kernel/journal.js';
import type { AttemptResult } from '../../providers/caller.js';
import type { CallSite, RetryPolicy } from '../kernel/env.js';
import { assertNever } from '../../core/never.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../suite/base-config.js';

/** A provider call's state: a fold of its own attempt events. */
export interface ProviderState {
  attempts: number;
  /** Attempts that count toward the policy's limit: an attempt cut short by an interrupt does not. */
  counted: number;
  lastCallId: string | null;
  outcome: { ok: true; data: DataOf<'ProviderCallSucceeded'> } | { ok: false; data: DataOf<'ProviderCallFailed'> } | null;
}

/** What to do next: send another attempt, wait first, or stop with the outcome. */
export type ProviderStep = { type: 'attempt'; callId: string; attempt: number; retryOf: string | null; delayMs: number } | { type: 'done' };

/** Commands of the provider caller. */
export type ProviderCommand =
  | {
      type: 'Send';
      site: CallSite;
      callId: string;
      attempt: number;
      retryOf: string | null;
      model: string;
      messages: string[];
      tools: string[];
      params: Record<string, unknown>;
      /** A pass-through attempt: the protocol, the body's blob and the forwarded headers it was sent with. */
      native?: { protocol: NativeProtocol; body: string; headers: Record<string, string> };
    }
  | { type: 'Settle'; callId: string; result: AttemptResult };

/** The start state. */
export const initialProviderState: ProviderState = { attempts: 0, counted: 0, lastCallId: null, outcome: null };

/** Decides the events of a command. */
export function decideProvider(cmd: ProviderCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'Send':
      return [
        draft('ProviderCallRequested', {
          callId: cmd.callId,
          attempt: cmd.attempt,
          retryOf: cmd.retryOf,
          attribution: cmd.site.attribution,
          model: cmd.model,
          messages: cmd.messages,
          tools: cmd.tools,
          params: cmd.params,
          // Absent for chat completions: their events are what they always were.
          ...(cmd.native
            ? { protocol: cmd.native.protocol, body: cmd.native.body, ...(Object.keys(cmd.native.headers).length > 0 ? { headers: cmd.native.headers } : {}) }
            : {}),
        }),
      ];
    case 'Settle':
      return cmd.result.ok
        ? [draft('ProviderCallSucceeded', { callId: cmd.callId, ...cmd.result.data })]
        : [draft('ProviderCallFailed', { callId: cmd.callId, ...cmd.result.data })];
    default:
      return assertNever(cmd);
  }
}

/** Folds one event of the call into its state. */
export function evolveProvider(state: ProviderState, e: StoredEvent): ProviderState {
  switch (e.type) {
    case 'ProviderCallRequested':
      return { ...state, attempts: e.data.attempt, lastCallId: e.data.callId, outcome: null };
    case 'ProviderCallSucceeded':
      return { ...state, counted: state.counted + 1, outcome: { ok: true, data: e.data } };
    case 'ProviderCallFailed':
      return { ...state, counted: state.counted + (notCounted(e.data.kind) ? 0 : 1), outcome: { ok: false, data: e.data } };
    default:
      return state;
  }
}

/** The retry policy as a pure function: next attempt (with its delay) or done. */
export function nextProviderStep(state: ProviderState, site: CallSite, policy: RetryPolicy): ProviderStep {
  const o = state.outcome;
  if (state.attempts === 0) return { type: 'attempt', callId: `${site.name}/attempt-1`, attempt: 1, retryOf: null, delayMs: 0 };
  if (!o || o.ok) return { type: 'done' };
  // The worker's deadline aborted it: the call ends, as the worker does.
  if (o.data.kind === 'aborted' && o.data.stoppedBy === 'deadline') return { type: 'done' };
  const attempt = state.attempts + 1;
  const callId = `${site.name}/attempt-${attempt}`;
  // An interrupted or cut-off attempt is sent again at once when the run resumes; it used none of the budget.
  if (notCounted(o.data.kind)) return { type: 'attempt', callId, attempt, retryOf: state.lastCallId, delayMs: 0 };
  if (!o.data.retryable || state.counted >= policy.maxAttempts) return { type: 'done' };
  const backoff = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (state.counted - 1));
  // Retry-After is honoured above the backoff cap (the provider said when it will listen again), but
  // only up to maxRetryAfterMs: a longer one would stall the run unseen, so that attempt is a plain
  // rate-limited failure and the normal backoff and retry limit go on.
  const asked = o.data.retryAfterMs;
  const delayMs = asked !== null && asked <= retryAfterCap(policy) ? Math.max(backoff, asked) : backoff;
  return { type: 'attempt', callId, attempt, retryOf: state.lastCallId, delayMs };
}

/** The longest Retry-After a policy waits for. */
export function retryAfterCap(policy: Pick<RetryPolicy, 'maxRetryAfterMs'>): number {
  return policy.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
}

// Attempts our side cut short (an interrupt, a crash) say nothing about the provider.
function notCounted(kind: FailureKind): boolean {
  return kind === 'aborted' || kind === 'unknown';
}

// Typed builders of stored events for unit tests of deciders and projections. Every event is
// parsed with the root zod union, so a test can only fold events the real system could emit.
import { CURRENT_VERSION, EvalogEventSchema, eventId, type DataOf, type EventType, type StoredEvent } from '../../src/events/index.js';
import type { AnyDraft } from '../../src/harness/kernel/journal.js';

/** The time every timeline starts at. */
export const T0 = Date.parse('2025-03-01T12:00:00.000Z');

/** Builds one schema-valid stored event; `at` is ms since the epoch or an ISO string. */
export function storedEvent<T extends EventType>(
  type: T,
  data: DataOf<T>,
  o: { runId?: string; jobId?: string; n?: number; seq?: number; at?: number | string; actor?: string; causationId?: string } = {},
): StoredEvent {
  const runId = o.runId ?? 'run-1';
  const at = typeof o.at === 'string' ? o.at : new Date(o.at ?? T0).toISOString();
  const parsed = EvalogEventSchema.parse({
    id: eventId(runId, o.jobId, o.n ?? 1),
    runId,
    ...(o.jobId === undefined ? {} : { jobId: o.jobId }),
    type,
    v: CURRENT_VERSION[type],
    at,
    actor: o.actor ?? (o.jobId ? `job/${o.jobId}` : 'run'),
    ...(o.causationId === undefined ? {} : { causationId: o.causationId }),
    data,
  });
  return { ...parsed, seq: o.seq ?? 0 } as StoredEvent;
}

/**
 * A run's log as a test writes it: events numbered per scope, a global seq, and times given as
 * milliseconds after T0, so durations in projections are known exactly.
 */
export class Timeline {
  readonly events: StoredEvent[] = [];
  private readonly counters = new Map<string, number>();

  constructor(readonly runId = 'run-1') {}

  /** Appends one event of a job (or of the run when `jobId` is undefined) at T0 + `afterMs`. */
  add<T extends EventType>(jobId: string | undefined, afterMs: number, type: T, data: DataOf<T>): StoredEvent {
    const key = jobId ?? '';
    const n = (this.counters.get(key) ?? 0) + 1;
    this.counters.set(key, n);
    const e = storedEvent(type, data, { runId: this.runId, jobId, n, seq: this.events.length + 1, at: T0 + afterMs });
    this.events.push(e);
    return e;
  }
}

/** Data of a `ProviderCallRequested`. */
export function requestedData(callId: string, o: Partial<DataOf<'ProviderCallRequested'>> = {}): DataOf<'ProviderCallRequested'> {
  return { callId, attempt: 1, retryOf: null, attribution: 'child', model: 'm', messages: [], tools: [], params: {}, ...o };
}

/** Data of a `ProviderCallSucceeded`; usage defaults to a fully reported one. */
export function succeededData(callId: string, o: Partial<DataOf<'ProviderCallSucceeded'>> = {}): DataOf<'ProviderCallSucceeded'> {
  return {
    callId,
    content: 'ok',
    toolCalls: [],
    finishReason: 'stop',
    usage: { prompt: 10, completion: 5, total: 15 },
    latencyMs: 20,
    ...o,
  };
}

/** Data of a `ProviderCallFailed`; a retryable 5xx unless told otherwise. */
export function failedData(callId: string, o: Partial<DataOf<'ProviderCallFailed'>> = {}): DataOf<'ProviderCallFailed'> {
  return { callId, kind: 'server_error', status: 500, retryAfterMs: null, message: 'boom', retryable: true, latencyMs: 5, ...o };
}

/** Folds events into a state: the "given" part of a given/when/then decider test. */
export function given<S>(evolve: (s: S, e: StoredEvent) => S, initial: S, events: readonly StoredEvent[]): S {
  return events.reduce(evolve, initial);
}

/** Drafts reduced to what a decider decides (type and data), for deep comparison. */
export function decided(drafts: readonly AnyDraft[]): { type: string; data: unknown }[] {
  return drafts.map((d) => ({ type: d.type, data: d.data }));
}

// The one place an event's envelope is put together, so every writer (the journal, a worker's
// claims and crash records) stamps the same fields in the same order and `v` is always the
// current schema version of the type, never a literal that goes stale when a type moves on.
import { CURRENT_VERSION, type DataOf, type EventOf, type EventType } from './schema.js';

/** The parts of a new event its writer decides; `v` comes from the type, `seq` from the log. */
export interface EventParts<T extends EventType> {
  id: string;
  runId: string;
  /** Absent for run-level events. */
  jobId?: string | undefined;
  type: T;
  at: string;
  /** Monotonic clock reading (ms, float); omitted when undefined. */
  mono?: number | undefined;
  actor: string;
  causationId?: string | undefined;
  data: DataOf<T>;
}

/** Builds a new event of `type` at its current schema version. */
export function buildEvent<T extends EventType>(p: EventParts<T>): EventOf<T> {
  return {
    id: p.id,
    runId: p.runId,
    ...(p.jobId === undefined ? {} : { jobId: p.jobId }),
    type: p.type,
    v: CURRENT_VERSION[p.type],
    at: p.at,
    ...(p.mono === undefined ? {} : { mono: p.mono }),
    actor: p.actor,
    ...(p.causationId === undefined ? {} : { causationId: p.causationId }),
    data: p.data,
  } as EventOf<T>;
}

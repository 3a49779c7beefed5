// evalog's exported event logs (`evalog export`): one canonical JSON stored event per line.
import { EvalogEventSchema, upcast, type StoredEvent } from '../events/index.js';
import { callRecords, sortedRows, usageProjection, type CallRecord } from '../projections/usage/index.js';

/** Parses one exported line into a stored event (upcast to the current schema); throws with a reason. */
export function parseExportedEvent(value: unknown, where: string): StoredEvent {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new TypeError('event must be a JSON object');
  const { seq, ...rest } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) throw new TypeError('field "seq" must be a non-negative integer');
  const lifted = upcast(rest, where);
  const parsed = EvalogEventSchema.safeParse(lifted);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new TypeError(`${String((lifted as { type?: unknown }).type)}: field ${issue.path.join('.') || '(event)'}: ${issue.message}`);
  }
  return { ...parsed.data, seq: seq as number } as StoredEvent;
}

/**
 * The call records of the runs in a set of stored events: each run's events, in seq order, go
 * through the same usage projection as the live usage.json, so the report is the same.
 */
export function recordsFromEvalogEvents(events: Iterable<StoredEvent>): CallRecord[] {
  const runs = new Map<string, StoredEvent[]>();
  for (const e of events) (runs.get(e.runId) ?? runs.set(e.runId, []).get(e.runId)!).push(e);
  const out: CallRecord[] = [];
  for (const [runId, list] of [...runs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    list.sort((a, b) => a.seq - b.seq);
    const state = usageProjection.initialState();
    for (const e of list) if (usageProjection.canHandle(e)) usageProjection.evolve(state, e);
    out.push(...callRecords(runId, sortedRows(state)));
  }
  return out;
}

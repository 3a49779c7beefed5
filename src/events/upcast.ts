import { NewerSchemaError, UnreadableEventError } from './errors.js';
import { CURRENT_VERSION, type EvalogEvent, type EventType } from './schema.js';

/** Lifts one stored shape of (type, v) to (type, v + 1). Old logs are upcast on read, never rewritten. */
export type Upcaster = (event: Record<string, unknown>) => Record<string, unknown>;

// One entry per (type, old version), lifting it by one version; chains run in order.
const upcasters: Readonly<Record<string, Upcaster>> = {
  // v1 did not grade the first revision: unknown, not false.
  'JobGraded@1': (e) => ({ ...e, v: 2, data: { ...(e.data as object), firstRevisionPassed: null } }),
  // v2 only widened `passed` to allow null; a v1 event is already a valid v2 one.
  'JobSucceeded@1': (e) => ({ ...e, v: 2 }),
  // v2 only added the `grading` attribution; an older evalog refuses it as newer instead of misreading it.
  'ProviderCallRequested@1': (e) => ({ ...e, v: 2 }),
  // v2 only added the `unknown` failure kind; an older evalog refuses it as newer instead of misreading it.
  'ProviderCallFailed@1': (e) => ({ ...e, v: 2 }),
  // v2 only added the `tokens` budget; an older evalog refuses it as newer instead of misreading it.
  'BudgetExhausted@1': (e) => ({ ...e, v: 2 }),
  // v2 only added the `agent_failed` reason; an older evalog refuses it as newer instead of misreading it.
  'JobFailed@1': (e) => ({ ...e, v: 2 }),
  // v2 only added the `deadline` reason and a step-limit one (now a suite rule's name, see job.ts); an older evalog refuses it as newer instead of misreading it.
  'WorkerStopped@1': (e) => ({ ...e, v: 2 }),
  // v3 only added the optional `stoppedBy`; an older evalog refuses it as newer instead of sending a deadline's attempt again.
  'ProviderCallFailed@2': (e) => ({ ...e, v: 3 }),
  // v2 only added the optional `cached`; an older evalog refuses it as newer instead of counting a cache hit as spent.
  'ProviderCallSucceeded@1': (e) => ({ ...e, v: 2 }),
  // v1 had no acceptance criteria: none were recorded.
  'TaskDelegated@1': (e) => ({ ...e, v: 2, data: { ...(e.data as object), acceptanceCriteria: null } }),
};

/** Brings a decoded event to the current version of its type, or explains why it cannot. */
export function upcast(raw: unknown, where: string): EvalogEvent {
  if (raw === null || typeof raw !== 'object') throw new UnreadableEventError(`${where}: event is not an object`);
  let event = raw as Record<string, unknown>;
  const type = event.type as EventType;
  const current = CURRENT_VERSION[type];
  if (current === undefined) throw new UnreadableEventError(`${where}: unknown event type ${JSON.stringify(event.type)}`);
  let v: unknown = event.v;
  if (typeof v !== 'number') throw new UnreadableEventError(`${where}: field "v" of ${type} is not a number`);
  if (v > current) {
    throw new NewerSchemaError(`${where}: ${type} has schema version ${v}, this evalog reads up to ${current}; upgrade evalog`);
  }
  while ((v as number) < current) {
    const step = upcasters[`${type}@${v}`];
    if (!step) throw new UnreadableEventError(`${where}: no upcaster for ${type} v${v}`);
    event = step(event);
    v = event.v as number;
  }
  return event as unknown as EvalogEvent;
}

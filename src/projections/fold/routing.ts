import { EVENT_TYPES, type EventType, type StoredEvent } from '../../events/index.js';
import type { Projection } from './projection.js';

/** The projections of a run, by the name the routing table uses. */
export const PROJECTION_NAMES = ['rows', 'columns', 'usage', 'provenance', 'artifacts', 'job-states'] as const;
/** One projection's name: `rows` = the base row of every job, `columns` = the suite's own columns of it. */
export type ProjectionName = (typeof PROJECTION_NAMES)[number];

/**
 * Which projections read each event type. Exhaustive by `satisfies`: a new event type fails to
 * compile until it is routed (to `[]` if nothing reads it), and each projection's switch is closed
 * over the types routed to it, so routing one more type fails to compile until it is handled.
 */
export const ROUTES = {
  RunStarted: ['rows', 'provenance', 'job-states'],
  RunCompleted: ['provenance'],
  // A retry reopens the run: run.json is unfinished again until the next RunCompleted, and lists its retries.
  RunReopened: ['provenance'],
  JobStarted: ['rows', 'artifacts', 'job-states'],
  JobClaimed: ['job-states'],
  TaskDelegated: ['columns'],
  WorkerStopped: ['rows', 'columns'],
  BudgetExhausted: ['rows', 'columns'],
  JobSucceeded: ['rows', 'columns', 'job-states'],
  JobFailed: ['rows', 'columns', 'job-states'],
  // A compute job's result: the suite's own outputs fold it (its columns, or its files).
  JobComputed: ['columns'],
  ProviderCallRequested: ['usage', 'columns'],
  ProviderCallSucceeded: ['usage', 'columns'],
  ProviderCallFailed: ['usage', 'columns'],
  ToolCalled: ['columns'],
  EnvironmentChanged: ['columns'],
  ArtifactRevised: ['artifacts', 'columns'],
  CheckEvaluated: ['columns'],
  JobGraded: ['columns'],
  ScenarioScored: ['columns'],
  FaultInjected: ['columns'],
  // An external agent's job: who ran it (the base row's `agent`), and how its process ended (the
  // stop reason, and the turns and protocol columns of the suites). A divergence is replay's to
  // report; no row changes with it (the job went on live, and its row is what it then did).
  AgentLaunched: ['rows'],
  AgentExited: ['rows', 'columns'],
  AgentDiverged: [],
  // The agent's own request beside its translation (Responses, Messages): replay's to compare; the
  // usage is the translated call's.
  AgentRequestReceived: [],
  // The workspace a grader read: the base row's `diff` (files changed, lines added and removed).
  WorkspaceCaptured: ['rows'],
} as const satisfies Record<EventType, readonly ProjectionName[]>;

/** The event types routed to projection `P`. */
export type RoutedType<P extends ProjectionName> = { [T in EventType]: P extends (typeof ROUTES)[T][number] ? T : never }[EventType];
/** An event of a type routed to projection `P`: what its `evolve` switches over. */
export type RoutedEvent<P extends ProjectionName> = Extract<StoredEvent, { type: RoutedType<P> }>;

// The table widened once (no cast: the literal table is one such record), then indexed per projection.
const TABLE: Readonly<Record<EventType, readonly ProjectionName[]>> = ROUTES;
const READERS = new Map<ProjectionName, ReadonlySet<EventType>>(PROJECTION_NAMES.map((p) => [p, new Set(EVENT_TYPES.filter((t) => TABLE[t].includes(p)))]));

/** The event types projection `p` reads, sorted. */
export function typesRoutedTo(p: ProjectionName): EventType[] {
  return [...READERS.get(p)!].sort();
}

/** True when the table routes `e` to projection `p`. */
export function isRoutedTo<P extends ProjectionName>(p: P, e: StoredEvent): e is RoutedEvent<P> {
  return READERS.get(p)!.has(e.type);
}

/** A fold over the events routed to one projection; its `evolve` switch is closed with `assertNever`. */
export interface RoutedFold<P extends ProjectionName, S, O> {
  initialState(): S;
  evolve(state: S, e: RoutedEvent<P>): S;
  result(state: S): O;
}

/** A projection whose `canHandle` is the routing table's, so which events it reads is said in one place. */
export function routed<P extends ProjectionName, S, O>(name: P, fold: RoutedFold<P, S, O>): Projection<S, O> {
  return {
    name,
    initialState: () => fold.initialState(),
    canHandle: (e) => isRoutedTo(name, e),
    evolve: (s, e) => (isRoutedTo(name, e) ? fold.evolve(s, e) : s),
    result: (s) => fold.result(s),
  };
}

import { z } from 'zod';
import { AgentEvents } from './agent.js';
import { ArtifactEvents } from './artifact.js';
import { GradeEvents } from './grade.js';
import { InjectionEvents } from './injection.js';
import { JobEvents } from './job.js';
import { ProviderEvents } from './provider.js';
import { RunEvents } from './run.js';
import { ToolEvents } from './tool.js';
import { WorkspaceEvents } from './workspace.js';

const all = [
  ...RunEvents,
  ...JobEvents,
  ...ProviderEvents,
  ...ToolEvents,
  ...ArtifactEvents,
  ...GradeEvents,
  ...InjectionEvents,
  ...AgentEvents,
  ...WorkspaceEvents,
] as const;

/** The root union of every current event schema, discriminated by `type`. */
export const EvalogEventSchema = z.discriminatedUnion('type', all);

/** Any event as actors emit it (before the log assigns `seq`). */
export type EvalogEvent = z.infer<typeof EvalogEventSchema>;
/** Name of an event type. */
export type EventType = EvalogEvent['type'];
/** The event of one type. */
export type EventOf<T extends EventType> = Extract<EvalogEvent, { type: T }>;
/** The data payload of one event type. */
export type DataOf<T extends EventType> = EventOf<T>['data'];
/** An event as stored, with the position the log gave it. */
export type StoredEvent = EvalogEvent & { seq: number };

/** Current schema version of each type; a stored event with a higher one is from a newer evalog. */
export const CURRENT_VERSION: Readonly<Record<EventType, number>> = Object.fromEntries(all.map((s) => [s.shape.type.value, s.shape.v.value])) as Record<
  EventType,
  number
>;

/** Every event type name, sorted. */
export const EVENT_TYPES: readonly EventType[] = Object.keys(CURRENT_VERSION).sort() as EventType[];

import { z } from 'zod';

/** Run ids name folders and NATS subject tokens, so they stay within a portable alphabet. */
export const RunId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, 'letters, digits, "_" and "-" only (at most 128), starting with a letter or digit')
  .describe('Run id: the run folder name in embedded mode, the subject token in NATS mode');

/** Job ids are `<case>:<arm>:<repetition>`; ':' is legal in NATS subject tokens, '.' is not. */
export const JobId = z
  .string()
  .regex(/^[A-Za-z0-9_:-]{1,200}$/, 'letters, digits, "_", "-" and ":" only')
  .describe('Job id, `<case>:<arm>:<repetition>`');

/** Fields every event carries; `seq` is not among them because the log assigns it. */
export const envelopeShape = {
  id: z.string().min(1).describe('Deterministic id: `<runId>/<jobId|_run>/<n>`'),
  runId: RunId,
  jobId: JobId.optional().describe('Absent for run-level events'),
  at: z.string().describe('ISO-8601 time from the injected clock'),
  // Additive and optional, so no type's version moves: logs written before it simply lack it, and a
  // reader that ignores it still has `at` (durations fall back to it, at millisecond resolution).
  mono: z
    .number()
    .optional()
    .describe("Monotonic reading of the injected clock in ms (sub-ms float, on the epoch's scale), for durations; absent in older logs"),
  actor: z.string().describe('Actor path, e.g. `job/<jobId>/worker`'),
  causationId: z.string().optional().describe('Id of the event that caused this one'),
};

/** Builds the schema of one event type at one schema version. */
export function eventSchema<T extends string, V extends number, D extends z.ZodType>(type: T, v: V, data: D) {
  return z.object({ ...envelopeShape, type: z.literal(type), v: z.literal(v), data });
}

/** The envelope without its type-specific parts, as actors hand it to the journal. */
export interface EnvelopeBase {
  id: string;
  runId: string;
  jobId?: string;
  at: string;
  /** Monotonic clock reading (ms, float); absent when the clock gives none or the log predates it. */
  mono?: number;
  actor: string;
  causationId?: string;
}

/** Id of the run-level pseudo job in event ids and subjects. */
export const RUN_SCOPE = '_run';

/** Formats a deterministic event id. */
export function eventId(runId: string, jobId: string | undefined, n: number): string {
  return `${runId}/${jobId ?? RUN_SCOPE}/${n}`;
}

import { z } from 'zod';
import { eventSchema } from './envelope.js';

/** Kinds of harness injections; none of them is ever a provider outcome. */
export const InjectionKind = z
  .enum(['source_mutation', 'query_failure', 'query_truncation', 'context_switch', 'worker_restart'])
  .describe(
    'source_mutation = a fixture source changed; query_* = a query reply was discarded or cut; context_switch = the conversation was replaced; worker_restart = the worker actor was stopped and rebuilt',
  );
export type InjectionKind = z.infer<typeof InjectionKind>;

/** A new revision of one fixture source, written by the harness (not by the agent). */
export const SourceMutation = z.object({
  source: z.string().describe('Source id, e.g. `limits.yaml`'),
  revision: z.number().int().positive().describe('The revision the source has after the mutation'),
  lines: z.array(z.string()).describe('The full text of the new revision, one entry per line'),
});
export type SourceMutation = z.infer<typeof SourceMutation>;

/**
 * The harness injected a fault or a change, as the scenario planned it. A distinct recorded fact:
 * usage and outcome of the provider calls it touched stay as the provider reported them.
 */
export const FaultInjected = eventSchema(
  'FaultInjected',
  1,
  z.object({
    injectionId: z.string().describe('Id of the planned injection in the scenario fixture; each fires at most once per job'),
    kind: InjectionKind,
    target: z.string().describe('What it hit: a source id, a query callId, or the worker actor'),
    detail: z.string().describe('What was done, for people reading the log'),
    notice: z.string().nullable().describe('Host message shown to the agent, null when the agent is told nothing'),
    mutation: SourceMutation.nullable().describe('The source change, for source_mutation; null otherwise'),
  }),
);

/** Events of the injection family. */
export const InjectionEvents = [FaultInjected] as const;

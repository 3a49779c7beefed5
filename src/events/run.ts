import { z } from 'zod';
import { eventSchema, JobId } from './envelope.js';
import { NativeProtocol } from './provider.js';

/** One job of the run's plan. */
export const PlannedJob = z.object({
  jobId: JobId,
  caseId: z.string().describe('Case (task) id within the suite'),
  arm: z.string().describe('Arm (condition) being compared'),
  repetition: z.number().int().positive().describe('1-based repetition'),
  seed: z.number().int().describe('Seed for this job (model sampling seed, job-local PRNG)'),
  meta: z.record(z.string(), z.unknown()).optional().describe('Suite-specific facts of the plan (e.g. kept facts, request fingerprint); never secrets'),
});
export type PlannedJob = z.infer<typeof PlannedJob>;

/** Where the model is reached; only names of environment variables, never their values. */
export const ModelInfo = z.object({
  name: z.string().describe("Model id the run's requests send; when arms send different ones, the endpoint's (see arms)"),
  scripted: z
    .boolean()
    .describe("True when evalog's scripted model played the calls: the built-in one (baseUrlEnv null) or an endpoint that identifies itself as it"),
  baseUrlEnv: z.string().nullable().describe('Name of the variable holding the endpoint, null for the scripted model'),
  apiKeyEnv: z.string().nullable().describe('Name of the variable holding the API key'),
  arms: z
    .record(z.string(), z.string())
    .optional()
    .describe('Model id each arm sends, only when arms send different ones (e.g. one model per arm); absent in older logs'),
  protocols: z
    .array(NativeProtocol)
    .optional()
    .describe(
      "Protocols the endpoint speaks natively (--endpoint-protocols): an agent's request in one of them is passed through unchanged, not translated onto chat completions; absent = chat only",
    ),
});

/** The run was planned and started: everything a rebuild needs to know about its set-up. */
export const RunStarted = eventSchema(
  'RunStarted',
  1,
  z.object({
    suite: z.string(),
    config: z.record(z.string(), z.unknown()).describe('The validated suite config'),
    configHash: z.string().describe('sha256 of the canonical config'),
    seed: z.number().int().describe('Run seed (job seeds derive from it)'),
    orderSeed: z.number().int().describe('Seed of the job-order shuffle'),
    jobs: z.array(PlannedJob).describe('Jobs in execution order'),
    model: ModelInfo,
    concurrency: z.number().int().positive(),
    provenance: z.record(z.string(), z.unknown()).describe('Source hashes, versions, git state'),
  }),
);

/** The run ended: all jobs reached a terminal event, or it was stopped. */
export const RunCompleted = eventSchema(
  'RunCompleted',
  1,
  z.object({
    status: z.enum(['completed', 'interrupted']).describe('interrupted = stopped by a signal, resumable'),
    jobsSucceeded: z.number().int().nonnegative(),
    jobsFailed: z.number().int().nonnegative(),
  }),
);

/**
 * A completed run was opened again (`evalog retry`): the named jobs run once more, each as a new
 * attempt in its own stream, and a RunCompleted follows when they have ended. Decided from the
 * jobs' last outcomes (see harness/retry), so replay re-decides it and compares.
 */
export const RunReopened = eventSchema(
  'RunReopened',
  1,
  z.object({
    retry: z.number().int().positive().describe('1 for the first retry of the run, 2 for the next, ...'),
    reason: z.enum(['errors', 'failed']).describe('errors = jobs that ended in JobFailed; failed = those and jobs that did not pass'),
    jobIds: z.array(JobId).min(1).describe('Jobs run again, in plan order'),
  }),
);

/** Events of the run family. */
export const RunEvents = [RunStarted, RunCompleted, RunReopened] as const;

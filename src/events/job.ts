import { z } from 'zod';
import { eventSchema } from './envelope.js';

/**
 * A job left the queue and its actors started. `attempt` is set on a retried job's later attempts
 * only (2, 3, ...): additive, with no version move, because a log that holds one also holds the
 * RunReopened that an older evalog refuses as unknown.
 */
export const JobStarted = eventSchema(
  'JobStarted',
  1,
  z.object({
    caseId: z.string(),
    arm: z.string(),
    repetition: z.number().int().positive(),
    seed: z.number().int(),
    attempt: z.number().int().min(2).optional().describe("The job's attempt (evalog retry), absent for the first"),
  }),
);

/**
 * The parent handed the task to the worker (its one `task` tool call). v2 added
 * `acceptanceCriteria`; a v1 event is upcast with null (no criteria were recorded).
 */
export const TaskDelegated = eventSchema(
  'TaskDelegated',
  2,
  z.object({
    mode: z.string().describe('Handoff mode the parent asked for'),
    brief: z.string().describe('Handoff text written by the parent'),
    words: z.number().int().nonnegative(),
    acceptanceCriteria: z.array(z.string()).nullable().describe('Completion requirements the parent attached for the worker; null when it set none'),
  }),
);

/** Why a worker stops by the harness's own limits, which every suite's worker has. */
export const HARNESS_STOP_REASONS = ['answered', 'turn_cap', 'deadline', 'time_limit', 'provider_failed'] as const;

/** A stop reason of the harness's own limits. */
export type HarnessStopReason = (typeof HARNESS_STOP_REASONS)[number];

/** The spelling of a reason a suite's stop rule names (snake_case, as the harness's own are). */
export const SUITE_STOP_REASON = /^[a-z][a-z0-9_]{0,63}$/;

/** Whether a recorded reason is one of the harness's own (else a suite's stop rule named it). */
export const isHarnessStopReason = (reason: string): reason is HarnessStopReason => (HARNESS_STOP_REASONS as readonly string[]).includes(reason);

/**
 * The worker's agent loop ended. v2 added `deadline` and a step-limit reason (new runs no longer
 * stop with `time_limit`, which v1 logs may hold); a v1 event is already a valid v2 one.
 *
 * The reason is one of the harness's own limits, or the name a suite's stop rule gives (see
 * harness/suite/stop-rule.ts): the generic event does not know any suite's names, so a suite
 * reason is only checked for its spelling. v2's step-limit reason is such a name now (the study
 * that has the rule names it); its recorded bytes, and every reason a built-in suite writes, are
 * the v2 values they were, so the version does not move. A reason a user's rule names is new to
 * an older evalog, which reads it as a string (as it reads every reason into a row) and cannot run
 * that suite's rule anyway.
 */
export const WorkerStopped = eventSchema(
  'WorkerStopped',
  2,
  z.object({
    reason: z
      .union([z.enum(HARNESS_STOP_REASONS), z.string().regex(SUITE_STOP_REASON, 'snake_case')])
      .describe(
        "answered = a reply without tool calls; turn_cap = worker.turnCap model turns; deadline = worker.timeLimitMs from the worker's start passed (an attempt in flight then is recorded aborted); time_limit = v1's check between turns; provider_failed = a call failed for good; any other = the reason the suite's stop rule names (its rule says when)",
      ),
    turns: z.number().int().nonnegative().describe('Model turns the worker took'),
    answer: z
      .string()
      .nullable()
      .describe(
        "Final message text, null when none; for a suite rule that reports the last reply, that reply's text (e.g. the partial result an upstream executor reports)",
      ),
  }),
);

/**
 * A budget of the job's agent loop ran out; the loop stops, and WorkerStopped (or, for an external
 * agent, AgentExited) follows. v2 added `tokens` (an external agent's token budget); a v1 event is
 * already a valid v2 one.
 */
export const BudgetExhausted = eventSchema(
  'BudgetExhausted',
  2,
  z.object({
    budget: z
      .enum(['main_calls', 'model_calls', 'deadline', 'tokens'])
      .describe(
        'main_calls = main-agent attempts, model_calls = attempts of every attribution, deadline = wall time of the job, tokens = reported total tokens',
      ),
    limit: z.number().int().nonnegative().describe("The cell's limit (calls, or milliseconds for the deadline)"),
    used: z.number().int().nonnegative().describe('What had been used when the loop stopped'),
  }),
);

/** The job reached its end. v2: `passed` is null when the job is graded later (v1 events upcast as they are). */
export const JobSucceeded = eventSchema(
  'JobSucceeded',
  2,
  z.object({ passed: z.boolean().nullable().describe('All hidden checks passed; null when grading is a later step') }),
);

/**
 * The job ended without a grade; the reason is a recorded outcome, not a crash. v2 added
 * `agent_failed` (an external agent exited non-zero or was killed by a signal it was not sent).
 */
export const JobFailed = eventSchema(
  'JobFailed',
  2,
  z.object({
    reason: z.enum(['parent_no_task', 'parent_bad_task', 'provider_failed', 'aborted', 'error', 'agent_failed']),
    message: z.string(),
  }),
);

/**
 * A worker process took the job (its first delivery, or a takeover after the previous holder went
 * quiet). Written by the worker runtime, not decided by an actor: replay skips it when matching
 * actors' events, and its fenced append is what shuts the previous holder out of the job's stream.
 */
export const JobClaimed = eventSchema(
  'JobClaimed',
  1,
  z.object({
    worker: z.string().min(1).describe('Worker identity, e.g. `<host>:<pid>:<nonce>`'),
    delivery: z.number().int().positive().describe('Delivery count of the job message (2+ = redelivered)'),
    resumedAfter: z.number().int().nonnegative().describe('Events of the job already in the log when claimed'),
  }),
);

/**
 * A compute job's work is done: its result, a pure function of the case, the plan and the config
 * (no model call). Recorded once, so the outputs are folds of the log and replay can recompute and
 * compare it.
 */
export const JobComputed = eventSchema(
  'JobComputed',
  1,
  z.object({
    output: z.record(z.string(), z.unknown()).describe("The job's result as plain JSON (what the suite's outputs are folded from); never secrets"),
  }),
);

/** Events of the job family. */
export const JobEvents = [JobStarted, TaskDelegated, WorkerStopped, BudgetExhausted, JobSucceeded, JobFailed, JobClaimed, JobComputed] as const;

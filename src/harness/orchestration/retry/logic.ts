import { assertNever } from '../../../core/never.js';
import type { DataOf, PlannedJob, StoredEvent } from '../../../events/index.js';

/** Which jobs a retry runs again: `errors` = those that ended in JobFailed; `failed` = those and the ones that did not pass. */
export type RetryReason = DataOf<'RunReopened'>['reason'];

/** How a job's last attempt ended: in errors (JobFailed), passed, not passed, or without a grade (passed null). */
export type LastOutcome = 'errors' | 'passed' | 'not_passed' | 'ungraded';

/** A job's attempts so far and how the last one ended (null while it runs). */
export interface JobAttempts {
  attempts: number;
  outcome: LastOutcome | null;
}

/** Each started job's attempts, by job id: a fold of the jobs' lifecycle events. */
export type Outcomes = Map<string, JobAttempts>;

/** The lifecycle events the outcome fold reads; the others leave it as it is. */
type Lifecycle = Extract<StoredEvent, { type: 'JobStarted' | 'JobSucceeded' | 'JobFailed' }>;

const isLifecycle = (e: StoredEvent): e is Lifecycle => e.type === 'JobStarted' || e.type === 'JobSucceeded' || e.type === 'JobFailed';

/** One step of the outcome fold: a later attempt's JobStarted replaces the earlier attempt's end. */
export function evolveOutcomes(s: Outcomes, e: StoredEvent): Outcomes {
  if (e.jobId === undefined || !isLifecycle(e)) return s;
  const job = s.get(e.jobId);
  switch (e.type) {
    case 'JobStarted':
      s.set(e.jobId, { attempts: e.data.attempt ?? 1, outcome: null });
      break;
    case 'JobSucceeded':
      if (job) job.outcome = e.data.passed === null ? 'ungraded' : e.data.passed ? 'passed' : 'not_passed';
      break;
    case 'JobFailed':
      if (job) job.outcome = 'errors';
      break;
    default:
      assertNever(e);
  }
  return s;
}

/** The outcomes of the jobs in `events`. */
export function foldOutcomes(events: Iterable<StoredEvent>): Outcomes {
  let s: Outcomes = new Map();
  for (const e of events) s = evolveOutcomes(s, e);
  return s;
}

/** Whether a job whose last attempt ended so is run again for `reason`. */
export function retries(outcome: LastOutcome | null | undefined, reason: RetryReason): boolean {
  return outcome === 'errors' || (reason === 'failed' && outcome === 'not_passed');
}

/** The command of a retry: its number in the run (1 = the first) and which jobs it runs again. */
export interface ReopenCommand {
  retry: number;
  reason: RetryReason;
}

/**
 * Decides a retry from the plan and the jobs' last outcomes: the jobs to run again in plan order,
 * or null when there is none (nothing to retry is not an event).
 */
export function decideReopen(cmd: ReopenCommand, plan: readonly PlannedJob[], outcomes: Outcomes): DataOf<'RunReopened'> | null {
  const jobIds = plan.filter((j) => retries(outcomes.get(j.jobId)?.outcome, cmd.reason)).map((j) => j.jobId);
  return jobIds.length === 0 ? null : { retry: cmd.retry, reason: cmd.reason, jobIds };
}

/** One pass of a retry as the coordinator runs it: its event, its jobs with their attempts, and the other jobs' ends. */
export interface RetryPass {
  data: DataOf<'RunReopened'>;
  /** The retried jobs in plan order, each with the attempt it now makes. */
  jobs: { job: PlannedJob; attempt: number }[];
  /** The last outcomes of the jobs not retried, which the pass's RunCompleted counts beside its own. */
  others: { succeeded: number; failed: number };
}

/** The pass that runs `data`'s jobs again, given the outcomes before it. */
export function passOf(data: DataOf<'RunReopened'>, plan: readonly PlannedJob[], outcomes: Outcomes): RetryPass {
  const chosen = new Set(data.jobIds);
  const jobs: RetryPass['jobs'] = [];
  const others = { succeeded: 0, failed: 0 };
  for (const job of plan) {
    const o = outcomes.get(job.jobId);
    if (chosen.has(job.jobId)) jobs.push({ job, attempt: (o?.attempts ?? 0) + 1 });
    else if (o?.outcome === 'errors') others.failed += 1;
    else if (o?.outcome) others.succeeded += 1;
  }
  return { data, jobs, others };
}

/**
 * The retries a log records, re-decided: each RunReopened's jobs are chosen again from the outcomes
 * folded from the events before it, so replay compares the decision with the recorded one (a
 * decision with no job is kept as one with none, for that comparison to report). With `next`, the
 * new retry (decided after every recorded event) follows; null when it has nothing to run.
 */
export function passesOf(events: readonly StoredEvent[], plan: readonly PlannedJob[], next?: RetryReason): { passes: RetryPass[]; next: RetryPass | null } {
  const outcomes: Outcomes = new Map();
  const passes: RetryPass[] = [];
  for (const e of events) {
    if (e.type === 'RunReopened') {
      const cmd = { retry: passes.length + 1, reason: e.data.reason };
      const data = decideReopen(cmd, plan, outcomes) ?? { ...cmd, jobIds: [] };
      passes.push(passOf(data, plan, outcomes));
    }
    evolveOutcomes(outcomes, e);
  }
  if (next === undefined) return { passes, next: null };
  const data = decideReopen({ retry: passes.length + 1, reason: next }, plan, outcomes);
  return { passes, next: data ? passOf(data, plan, outcomes) : null };
}

/** A recording's events back in log order (they are kept by scope). */
export function inLogOrder(byScope: ReadonlyMap<string, readonly StoredEvent[]>): StoredEvent[] {
  return [...byScope.values()].flat().sort((a, b) => a.seq - b.seq);
}

import type { DataOf, PlannedJob } from '../events/index.js';
import { draft, type AnyDraft } from './journal.js';
import { assertNever } from '../core/never.js';
import { RunInterrupted } from './errors.js';
import type { JobEnv } from './env.js';

/** Commands of a job's own lifecycle. */
export type JobCommand =
  | { type: 'Start'; job: PlannedJob }
  | { type: 'Succeed'; passed: boolean | null }
  | { type: 'Fail'; reason: DataOf<'JobFailed'>['reason']; message: string };

/** Decides the lifecycle events of a job. */
export function decideJob(cmd: JobCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'Start':
      return [draft('JobStarted', { caseId: cmd.job.caseId, arm: cmd.job.arm, repetition: cmd.job.repetition, seed: cmd.job.seed })];
    case 'Succeed':
      return [draft('JobSucceeded', { passed: cmd.passed })];
    case 'Fail':
      return [draft('JobFailed', { reason: cmd.reason, message: cmd.message })];
    default:
      return assertNever(cmd);
  }
}

/** Emits a job lifecycle event; at an interrupt, a terminal event is left for resume to decide. */
export async function recordJob(env: JobEnv, cmd: JobCommand): Promise<void> {
  if (cmd.type !== 'Start' && !env.scope.replaying && env.signal.aborted) throw new RunInterrupted();
  for (const d of decideJob(cmd)) await env.scope.emit(`job/${env.job.jobId}`, d);
}

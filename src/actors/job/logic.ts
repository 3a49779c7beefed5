import type { DataOf, PlannedJob } from '../../events/index.js';
import { draft, type AnyDraft } from '../../runtime/journal.js';
import { assertNever } from '../../runtime/never.js';

/** Commands of a job's own lifecycle. */
export type JobCommand =
  | { type: 'Start'; job: PlannedJob }
  | { type: 'Succeed'; passed: boolean }
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

import type { DataOf, PlannedJob } from '../../events/index.js';
import { draft, emitAll, type AnyDraft } from './journal.js';
import { assertNever } from '../../core/never.js';
import { RunInterrupted } from './errors.js';
import type { JobJournal } from './ports.js';

/** Commands of a job's own lifecycle. */
export type JobCommand =
  /** `attempt` is set for a retried job's later attempts only (2, 3, ...). */
  | { type: 'Start'; job: PlannedJob; attempt?: number }
  | { type: 'Succeed'; passed: boolean | null }
  | { type: 'Fail'; reason: DataOf<'JobFailed'>['reason']; message: string };

/** Decides the lifecycle events of a job. */
export function decideJob(cmd: JobCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'Start':
      return [
        draft('JobStarted', {
          caseId: cmd.job.caseId,
          arm: cmd.job.arm,
          repetition: cmd.job.repetition,
          // A retry runs the same job: same seed, so a fixed model answers as it would have.
          seed: cmd.job.seed,
          ...(cmd.attempt !== undefined && cmd.attempt > 1 ? { attempt: cmd.attempt } : {}),
        }),
      ];
    case 'Succeed':
      return [draft('JobSucceeded', { passed: cmd.passed })];
    case 'Fail':
      return [draft('JobFailed', { reason: cmd.reason, message: cmd.message })];
    default:
      return assertNever(cmd);
  }
}

/**
 * Emits a job lifecycle event; at an interrupt, a terminal event is left for resume to decide.
 * `post`: nothing waits for it to be durable; it goes out with the scope's next emit (see ScopeJournal.post).
 */
export async function recordJob(input: { journal: JobJournal; signal: AbortSignal; cmd: JobCommand; post?: boolean }): Promise<void> {
  const { journal, signal, cmd } = input;
  if (cmd.type !== 'Start' && !journal.scope.replaying && signal.aborted) throw new RunInterrupted();
  const attempted = cmd.type === 'Start' && journal.attempt !== undefined ? { ...cmd, attempt: journal.attempt } : cmd;
  await emitAll(journal.scope, `job/${journal.jobId}`, decideJob(attempted), { post: input.post });
}

/** Input of the record actor of every job machine. */
export type RecordJobInput = Parameters<typeof recordJob>[0];

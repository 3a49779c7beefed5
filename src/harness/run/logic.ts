import type { DataOf, PlannedJob } from '../../events/index.js';
import { draft, type AnyDraft } from '../kernel/journal.js';
import { assertNever } from '../../core/never.js';
import { CPythonRandom } from '../../stats/index.js';

/** Commands of the run coordinator. */
export type RunCommand =
  | { type: 'Start'; data: DataOf<'RunStarted'> }
  /** A retry's pass begins: its jobs were chosen by `decideReopen` (harness/retry) from the jobs' last outcomes. */
  | { type: 'Reopen'; data: DataOf<'RunReopened'> }
  | { type: 'Complete'; jobsSucceeded: number; jobsFailed: number };

/** Decides the run-level events. */
export function decideRun(cmd: RunCommand): AnyDraft[] {
  switch (cmd.type) {
    case 'Start':
      return [draft('RunStarted', cmd.data)];
    case 'Reopen':
      return [draft('RunReopened', cmd.data)];
    case 'Complete':
      return [draft('RunCompleted', { status: 'completed', jobsSucceeded: cmd.jobsSucceeded, jobsFailed: cmd.jobsFailed })];
    default:
      return assertNever(cmd);
  }
}

/**
 * The jobs of a run in execution order: repetitions × cases × arms, shuffled with CPython's
 * `random.Random(orderSeed).shuffle` so the order is reproducible from the recorded seed alone.
 * Both arms of a case share a repetition's seed: the comparison is paired. The first repetition
 * gets the config seed itself and each later one the next integer (`seed + repetition - 1`), as the
 * published runners number repetitions from 0 and seed each job with `seed + repetition`; job ids
 * keep 1-based repetitions.
 */
export function planJobs(caseIds: readonly string[], arms: readonly string[], repetitions: number, seed: number, orderSeed: number): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  for (let repetition = 1; repetition <= repetitions; repetition++) {
    for (const caseId of caseIds) {
      for (const arm of arms) jobs.push({ jobId: `${caseId}:${arm}:${repetition}`, caseId, arm, repetition, seed: seed + repetition - 1 });
    }
  }
  return new CPythonRandom(orderSeed).shuffle(jobs);
}

/** The coordinator's counters: a fold of job outcomes. */
export interface RunProgress {
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  interrupted: number;
  /** Jobs whose record ended before their terminal event (replay of an unfinished run). */
  incomplete: number;
}

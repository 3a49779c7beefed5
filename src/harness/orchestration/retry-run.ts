import type { EventLog } from '../../log/index.js';
import { systemClock } from '../../core/clock.js';
import { Journal } from '../kernel/journal.js';
import { executeRun, prepareRecorded } from './launch.js';
import { loadRecording } from './recording.js';
import { checkBlobs, refuseChanged, ResumeRefusedError, suiteFor, type ResumeOptions } from './replay-resume.js';
import { inLogOrder, passesOf, type RetryReason } from './retry/index.js';
import type { RunOutput } from '../run/machine.js';

/** What a retry did: nothing (no job to run again), or a pass over `jobIds` that completed or was interrupted. */
export type RetryResult = { retried: false } | (RunOutput & { retried: true; retry: number; jobIds: readonly string[] });

/** Options of `retryRun`: resume's, and which jobs to run again. */
export type RetryOptions = Omit<ResumeOptions, 'remote'> & { reason: RetryReason };

/**
 * Runs again, in the same log, the jobs of a completed run that ended in errors (or, for `failed`,
 * that did not pass): what is recorded is replayed (no call sent again, earlier retries included),
 * then a RunReopened names the jobs and each runs as its next attempt, with its call ids marked
 * with the attempt; a RunCompleted ends the retry. Interrupted, it is resumable like a run.
 */
export async function retryRun(log: EventLog, runId: string, options: RetryOptions): Promise<RetryResult> {
  // The writer lock first: nothing is decided or sent while another process writes the run.
  await log.claimWriter(runId);
  const rec = await loadRecording(log, runId);
  if (!rec.completed) throw new ResumeRefusedError(`cannot retry run ${runId}: it is not complete; finish it first with evalog resume`);
  await checkBlobs(log, runId, rec);
  const { suiteOf, reason, ...rest } = options;
  const defined = suiteFor(rec, suiteOf);
  const { passes, next } = passesOf(inLogOrder(rec.byScope), rec.started.jobs, reason);
  if (next === null) return { retried: false };
  await refuseChanged(rec, runId, suiteOf, 'retry');
  const suite = await prepareRecorded(defined, rec.started);
  // An external agent's calls are named by the agent's own requests, not by the job's attempt.
  if (suite.jobKind === 'external') throw new ResumeRefusedError(`cannot retry run ${runId}: retrying jobs of an external agent is not supported`);
  const journal = Journal.resume(log, runId, rec.byScope, { clock: rest.clock ?? systemClock });
  const out = await executeRun({ ...rest, suite, log, runId, started: rec.started, journal, retries: [...passes, next] });
  return { ...out, retried: true, retry: next.data.retry, jobIds: next.data.jobIds };
}

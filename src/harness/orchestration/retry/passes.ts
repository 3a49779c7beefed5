import type { DataOf } from '../../../events/index.js';
import type { RunInput, RunOutput } from '../../run/machine.js';
import type { RetryPass } from './logic.js';

/** Runs one pass of the coordinator (the run's first, or a retry's) and resolves with how it ended. */
export type RunPass = (input: Pick<RunInput, 'started' | 'reopen'>) => Promise<RunOutput>;

/**
 * After the run's first pass, its retries in order, each once the pass before it completed: the
 * retried jobs run as their next attempt (`attempts`, read by each job's journal scope), so the
 * same jobs' streams go on where their last attempt ended. An interrupted pass ends the run there,
 * resumable (resume replays the passes recorded and goes on with the one cut off).
 */
export async function runRetries(
  first: RunOutput,
  passes: readonly RetryPass[],
  started: DataOf<'RunStarted'>,
  attempts: Map<string, number>,
  runPass: RunPass,
): Promise<RunOutput> {
  let out = first;
  for (const pass of passes) {
    if (out.status !== 'completed') return out;
    for (const { job, attempt } of pass.jobs) attempts.set(job.jobId, attempt);
    out = await runPass({ started: { ...started, jobs: pass.jobs.map((j) => j.job) }, reopen: { data: pass.data, others: pass.others } });
  }
  return out;
}

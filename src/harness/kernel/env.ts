// The small shared types of the harness's ports: retry policy, sleep, call sites, remote jobs.
import type { Attribution, PlannedJob } from '../../events/index.js';

/** Retry settings of provider calls, from the suite config. */
export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
  /** Longest Retry-After waited for (default 60 s; absent in runs recorded before it existed). */
  maxRetryAfterMs?: number;
  timeoutMs: number;
}

/** Sleeps unless aborted; injected so replay and tests never wait. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** Jobs run elsewhere (scaled-out workers): `run` resolves once the job's end is in the log. */
export interface RemoteJobs {
  /** Jobs the coordinator keeps outstanding at once. */
  readonly window: number;
  run(job: PlannedJob, signal: AbortSignal): Promise<JobOutput>;
}

/** How a job ended. */
export interface JobOutput {
  jobId: string;
  status: 'succeeded' | 'failed';
}

/** Who makes a call within a job, for actor paths and usage attribution. */
export interface CallSite {
  actor: string;
  /** Prefix of causal call ids, e.g. `worker/turn-3`. */
  name: string;
  attribution: Attribution;
}

/** Real sleep that ends early (resolves) on abort. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

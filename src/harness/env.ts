import type { Attribution, PlannedJob } from '../events/index.js';
import type { ModelCaller } from '../providers/caller.js';
import type { ScopeJournal } from './journal.js';
import type { Journal } from './journal.js';
import type { CaseSpec, Suite, SuiteConfigBase } from './suite/types.js';

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

/** Everything the actors of one run need from the outside world: passed in, never imported. */
export interface RunEnv {
  journal: Journal;
  caller: ModelCaller;
  suite: Suite<SuiteConfigBase, unknown>;
  config: SuiteConfigBase;
  /** The suite's cases by id, loaded once per run. */
  cases: ReadonlyMap<string, CaseSpec<unknown>>;
  model: string;
  sleep: Sleep;
  signal: AbortSignal;
  /** Set when workers run the jobs; the coordinator then only queues them and waits. */
  remote?: RemoteJobs;
}

/** The environment of one job: the run's, plus the job's own journal scope. */
export interface JobEnv extends RunEnv {
  job: PlannedJob;
  scope: ScopeJournal;
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

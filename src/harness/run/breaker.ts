// The run's breaker: a dead endpoint or a revoked key fails every job the same way, and a run of
// 3000 jobs should not record 3000 failures before anyone looks. After `max` jobs in a row end in
// JobFailed (in the order they ended), the coordinator stops dispatching; the run ends interrupted,
// resumable once the cause is fixed. Not recorded as an event: the order in which concurrent jobs
// end is not part of the record, so a replay could not decide the same halt.

/** Options of the breaker: `max` failures in a row stop the run (0 = off); `uncounted` jobs do not count. */
export interface BreakerOptions {
  max: number;
  /** Jobs whose end was recorded before this process (resume): they neither count nor reset the count. */
  uncounted?: ReadonlySet<string>;
}

/** The breaker's state: a fold of job ends. */
export interface BreakerState {
  max: number;
  /** Jobs in a row that ended in JobFailed, among those counted. */
  streak: number;
  /** Set once `streak` reached `max`; stays set (no job starts after it). */
  tripped: boolean;
  uncounted: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** A breaker that has counted nothing (a resume starts from zero). */
export function breakerStart(options: BreakerOptions | undefined): BreakerState {
  return { max: options?.max ?? 0, streak: 0, tripped: false, uncounted: options?.uncounted ?? NONE };
}

/** One job ended: a failure adds to the streak, a success resets it; the breaker trips at `max`. */
export function noteJobEnd(b: BreakerState, jobId: string, status: 'succeeded' | 'failed'): BreakerState {
  if (b.max <= 0 || b.tripped || b.uncounted.has(jobId)) return b;
  const streak = status === 'failed' ? b.streak + 1 : 0;
  return { ...b, streak, tripped: streak >= b.max };
}

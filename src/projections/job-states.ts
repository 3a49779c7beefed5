import { assertNever } from '../core/never.js';
import type { Projection } from './fold/projection.js';
import { routed } from './fold/routing.js';
import { own } from '../core/strings.js';

/** Where a run's jobs are: not started yet, running (or stopped midway), or ended; and who ran them. */
export interface JobStates {
  planned: number;
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  /** Workers that claimed jobs of the run, sorted; empty for jobs run inline. */
  workers: string[];
}

interface State {
  planned: number;
  started: Set<string>;
  ended: Map<string, 'succeeded' | 'failed'>;
  workers: Set<string>;
}

/** Folds a run's events into its job counts (for `evalog runs` and the viewer). */
export const jobStatesProjection: Projection<State, JobStates> = routed('job-states', {
  initialState: (): State => ({ planned: 0, started: new Set(), ended: new Map(), workers: new Set() }),
  evolve(s: State, e): State {
    if (e.type === 'RunStarted') {
      s.planned = e.data.jobs.length;
      return s;
    }
    if (e.jobId === undefined) return s;
    switch (e.type) {
      case 'JobStarted':
        started(s, e.jobId);
        // A retried job's later attempt runs again: its earlier end no longer counts.
        if (e.data.attempt !== undefined) s.ended.delete(e.jobId);
        break;
      case 'JobClaimed':
        started(s, e.jobId);
        if (!s.workers.has(e.data.worker)) s.workers.add(own(e.data.worker));
        break;
      case 'JobSucceeded':
      case 'JobFailed':
        started(s, e.jobId);
        if (!s.ended.has(e.jobId)) s.ended.set(own(e.jobId), e.type === 'JobSucceeded' ? 'succeeded' : 'failed');
        break;
      default:
        assertNever(e);
    }
    return s;
  },
  result(s: State): JobStates {
    let succeeded = 0;
    for (const v of s.ended.values()) if (v === 'succeeded') succeeded += 1;
    const failed = s.ended.size - succeeded;
    return {
      planned: s.planned,
      pending: Math.max(0, s.planned - s.started.size),
      running: s.started.size - s.ended.size,
      succeeded,
      failed,
      workers: [...s.workers].sort(),
    };
  },
});

/** Counts the job as started; the set keeps its own copy of the id, made once (own() allocates). */
function started(s: State, jobId: string): void {
  if (!s.started.has(jobId)) s.started.add(own(jobId));
}

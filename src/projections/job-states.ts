import type { StoredEvent } from '../events/index.js';
import type { Projection } from './projection.js';

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
export const jobStatesProjection: Projection<State, JobStates> = {
  name: 'job-states',
  initialState: () => ({ planned: 0, started: new Set(), ended: new Map(), workers: new Set() }),
  canHandle: (e: StoredEvent) => e.type === 'RunStarted' || e.type === 'JobStarted' || e.type === 'JobClaimed' || e.type === 'JobSucceeded' || e.type === 'JobFailed',
  evolve(s, e) {
    if (e.type === 'RunStarted') s.planned = e.data.jobs.length;
    else if (e.jobId === undefined) return s;
    else if (e.type === 'JobStarted') s.started.add(e.jobId);
    else if (e.type === 'JobClaimed') {
      s.started.add(e.jobId);
      s.workers.add(e.data.worker);
    } else if (e.type === 'JobSucceeded' || e.type === 'JobFailed') {
      s.started.add(e.jobId);
      if (!s.ended.has(e.jobId)) s.ended.set(e.jobId, e.type === 'JobSucceeded' ? 'succeeded' : 'failed');
    }
    return s;
  },
  result(s) {
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
};

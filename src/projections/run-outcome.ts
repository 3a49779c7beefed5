import { assertNever } from '../core/never.js';
import type { StoredEvent } from '../events/index.js';
import type { Projection } from './fold/projection.js';
import { own } from '../core/strings.js';

/** How a run's jobs ended, for the exit code and a partial run's note; the same for every suite. */
export interface RunOutcome {
  /** Jobs in the plan. */
  planned: number;
  /** Jobs with a terminal event (JobSucceeded or JobFailed). */
  ended: number;
  /** Jobs whose last end is JobFailed (provider, agent, crash): no verdict. */
  failed: number;
  /** Of those, the jobs whose external agent failed (`agent_failed`): what it printed says why (`evalog show`). */
  agentFailed: number;
  /** Ended jobs with a verdict (JobGraded) and not failed since. */
  graded: number;
  /** Of those, how many passed. */
  passed: number;
  /** The last JobFailed in the log (for a one-line reason), or null. */
  lastFailure: { jobId: string; reason: string; message: string } | null;
}

const TYPES = ['RunStarted', 'JobGraded', 'JobSucceeded', 'JobFailed'] as const;
type Handled = Extract<StoredEvent, { type: (typeof TYPES)[number] }>;
const HANDLED: ReadonlySet<string> = new Set(TYPES);

interface State {
  planned: number;
  /** Per job: how it last ended (null while it has not) and its last verdict. */
  jobs: Map<string, { end: 'succeeded' | 'failed' | 'agent_failed' | null; passed: boolean | null }>;
  lastFailure: RunOutcome['lastFailure'];
}

const job = (s: State, id: string) => s.jobs.get(id) ?? s.jobs.set(own(id), { end: null, passed: null }).get(id)!;

/** Folds a run's events into its outcome; a job ended again (a retried attempt) counts by its last end. */
export const runOutcomeProjection: Projection<State, RunOutcome> = {
  name: 'run-outcome',
  initialState: () => ({ planned: 0, jobs: new Map(), lastFailure: null }),
  canHandle: (e) => HANDLED.has(e.type),
  evolve(s: State, ev: StoredEvent): State {
    if (!HANDLED.has(ev.type)) return s;
    const e = ev as Handled;
    switch (e.type) {
      case 'RunStarted':
        s.planned = e.data.jobs.length;
        break;
      case 'JobGraded':
        if (e.jobId !== undefined) job(s, e.jobId).passed = e.data.passed;
        break;
      case 'JobSucceeded':
        if (e.jobId !== undefined) job(s, e.jobId).end = 'succeeded';
        break;
      case 'JobFailed':
        if (e.jobId === undefined) break;
        job(s, e.jobId).end = e.data.reason === 'agent_failed' ? 'agent_failed' : 'failed';
        s.lastFailure = { jobId: e.jobId, reason: e.data.reason, message: e.data.message };
        break;
      default:
        assertNever(e);
    }
    return s;
  },
  result(s: State): RunOutcome {
    let ended = 0;
    let failed = 0;
    let agentFailed = 0;
    let graded = 0;
    let passed = 0;
    for (const j of s.jobs.values()) {
      if (j.end === null) continue;
      ended += 1;
      if (j.end === 'agent_failed') agentFailed += 1;
      if (j.end === 'failed' || j.end === 'agent_failed') failed += 1;
      else if (j.passed !== null) {
        graded += 1;
        if (j.passed) passed += 1;
      }
    }
    return { planned: s.planned, ended, failed, agentFailed, graded, passed, lastFailure: s.lastFailure };
  },
};

/** The pass rate over the jobs with a verdict; null when none has one. */
export function passRate(o: RunOutcome): number | null {
  return o.graded > 0 ? o.passed / o.graded : null;
}

/** True when the run has fewer ended jobs than planned (interrupted, crashed, or stopped by the breaker). */
export function isPartial(o: RunOutcome): boolean {
  return o.ended < o.planned;
}

/** What a partial run's summary and table say (null for a run whose every job ended). */
export function partialNote(o: RunOutcome): { field: { jobs_ended: number; jobs_planned: number }; line: string } | null {
  if (!isPartial(o)) return null;
  return {
    field: { jobs_ended: o.ended, jobs_planned: o.planned },
    line: `partial: ${o.ended} of ${o.planned} jobs (the run did not finish; evalog resume continues it)`,
  };
}

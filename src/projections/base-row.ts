import { assertNever } from '../core/never.js';
import { merged } from '../core/objects.js';
import { attemptOfName, type DataOf } from '../events/index.js';
import { routed, type RoutedEvent, type RoutedFold } from './fold/routing.js';
import { own } from '../core/strings.js';
import { CACHED, cmp, GRADING, type CallAttribution, type CallRecord, type CallRow, type UsageTotals } from './usage/index.js';
import { totalsByAttribution } from './usage/report.js';

/** Why a job's loop stopped: a budget that ran out, else the worker's (or the external agent's) stop reason. */
export type StopReason = DataOf<'WorkerStopped'>['reason'] | DataOf<'AgentExited'>['reason'] | `budget:${DataOf<'BudgetExhausted'>['budget']}`;

/**
 * What every job has, whatever its shape (agent, single-call, session): who it is, how it ended,
 * its calls and their usage per attribution exactly as usage.json counts them, and its time.
 * Suites publish it with their own columns (see `JobColumns`).
 */
export interface BaseRow {
  job_id: string;
  case_id: string;
  arm: string;
  /** The external agent that ran the job (AgentLaunched); absent for evalog's own loop, so older rows keep their shape. */
  agent?: string;
  repetition: number;
  seed: number;
  /**
   * How many attempts the job had (`evalog retry`), only when more than one: the row is its last
   * attempt's, so rows of runs without a retry keep their shape. Every attempt's calls are in usage.json.
   */
  attempts?: number;
  started_at: string;
  status: 'succeeded' | 'failed' | 'unfinished';
  /** null when the job had no loop (a single call) or it has not stopped. */
  stop_reason: StopReason | null;
  failure: { reason: DataOf<'JobFailed'>['reason']; message: string } | null;
  /** The agent's call attempts (a judge's are apart, as in usage.json). */
  calls: number;
  /** usage.json's `byAttribution` of this job's attempts alone. */
  usage: Record<CallAttribution, UsageTotals>;
  /** From JobStarted to the job's terminal event, by the recorded clock. */
  seconds: number | null;
  /** The graded workspace's diff (WorkspaceCaptured); absent for a job without a workspace, so other rows keep their shape. */
  diff?: DataOf<'WorkspaceCaptured'>['summary'];
}

/** A job as it starts: its plan entry and when, for a suite's columns to begin from. */
export interface JobStart {
  jobId: string;
  caseId: string;
  arm: string;
  repetition: number;
  seed: number;
  /** Recorded time of JobStarted, in milliseconds. */
  startedMs: number;
  /** Monotonic reading of JobStarted (ms, float), absent in logs recorded before it was. */
  startedMono?: number;
  /** The suite's facts of the plan (RunStarted), absent when it recorded none. */
  meta: Record<string, unknown> | undefined;
}

/** A base row before its calls are merged in (they come from the usage projection, by job id). */
export type BaseRowCore = Omit<BaseRow, 'calls' | 'usage'>;

interface Job {
  row: BaseRowCore;
  start: JobStart;
}

/** State of the base rows: the plan's facts per job, and each started job. */
export interface BaseState {
  meta: Map<string, Record<string, unknown>>;
  jobs: Map<string, Job>;
}

/** The base-row fold: one entry per started job, keyed by job id. */
export const baseRowsFold: RoutedFold<'rows', BaseState, BaseState> = {
  initialState: (): BaseState => ({ meta: new Map(), jobs: new Map() }),
  evolve(s: BaseState, e: RoutedEvent<'rows'>): BaseState {
    if (e.type === 'RunStarted') {
      for (const j of e.data.jobs) if (j.meta) s.meta.set(own(j.jobId), j.meta);
      return s;
    }
    const jobId = e.jobId;
    if (jobId === undefined) return s;
    if (e.type === 'JobStarted') {
      const job = started(jobId, e.data, e.at, s.meta.get(jobId), e.mono);
      s.jobs.set(job.row.job_id, job); // the job's own copy of its id: a decoded one keeps its whole event alive
      return s;
    }
    const job = s.jobs.get(jobId);
    if (!job) return s;
    const row = job.row;
    switch (e.type) {
      case 'BudgetExhausted':
        row.stop_reason = `budget:${e.data.budget}`;
        break;
      case 'WorkerStopped':
      case 'AgentExited':
        // A budget is why the loop stopped, even though the worker's (or agent's) own stop follows it.
        if (!row.stop_reason?.startsWith('budget:')) row.stop_reason = e.data.reason;
        break;
      case 'AgentLaunched':
        row.agent = own(e.data.agent);
        break;
      case 'WorkspaceCaptured':
        row.diff = { files: e.data.summary.files, added: e.data.summary.added, removed: e.data.summary.removed };
        break;
      case 'JobSucceeded':
        row.status = 'succeeded';
        row.seconds = (Date.parse(e.at) - job.start.startedMs) / 1000;
        break;
      case 'JobFailed':
        row.status = 'failed';
        row.failure = { reason: e.data.reason, message: own(e.data.message) };
        row.seconds = (Date.parse(e.at) - job.start.startedMs) / 1000;
        break;
      default:
        assertNever(e);
    }
    return s;
  },
  result: (s: BaseState): BaseState => s,
};

/** The base-row fold as a projection (its result is the state `baseRows` merges with the calls). */
export const baseRowsProjection = routed('rows', baseRowsFold);

function started(jobId: string, d: DataOf<'JobStarted'>, at: string, meta: Record<string, unknown> | undefined, mono: number | undefined): Job {
  const row: BaseRowCore = {
    job_id: own(jobId),
    case_id: own(d.caseId),
    arm: own(d.arm),
    repetition: d.repetition,
    seed: d.seed,
    ...(d.attempt === undefined ? {} : { attempts: d.attempt }),
    started_at: own(at),
    status: 'unfinished',
    stop_reason: null,
    failure: null,
    seconds: null,
  };
  const start: JobStart = { jobId: row.job_id, caseId: row.case_id, arm: row.arm, repetition: d.repetition, seed: d.seed, startedMs: Date.parse(at), meta };
  if (mono !== undefined) start.startedMono = mono;
  return { row, start };
}

/**
 * The base rows, in job-id order: each job's entry merged with its (last attempt's) call attempts from the usage
 * projection (`calls`, sorted by job id as usage.json lists them), aggregated the way usage.json
 * aggregates them. One at a time, so a large run never holds every job's usage at once.
 */
export function* baseRows(s: BaseState, calls: readonly CallRow[]): Generator<{ row: BaseRow; start: JobStart }> {
  const jobs = [...s.jobs.values()].sort((a, b) => cmp(a.row.job_id, b.row.job_id));
  let i = 0; // a merge of two lists sorted by job id: the calls of jobs that never started are passed over
  for (const { row, start } of jobs) {
    while (i < calls.length && cmp(calls[i]!.job_id, row.job_id) < 0) i += 1;
    const from = i;
    while (i < calls.length && calls[i]!.job_id === row.job_id) i += 1;
    yield { row: withCalls(row, calls, from, i), start };
  }
}

/**
 * One job's base row, taken out of the fold (its entry is forgotten) with its calls (this job's
 * attempts as usage.json lists them, sorted by call id): what the streaming outputs publish as a
 * job ends. Undefined for a job that never started.
 */
export function takeBaseRow(s: BaseState, jobId: string, calls: readonly CallRow[]): { row: BaseRow; start: JobStart } | undefined {
  const job = s.jobs.get(jobId);
  if (!job) return undefined;
  s.jobs.delete(jobId);
  return { row: withCalls(job.row, calls, 0, calls.length), start: job.start };
}

/** The row merged with its calls `calls[from..to)` (all of its job), aggregated as usage.json aggregates them. */
function withCalls(row: BaseRowCore, calls: readonly CallRow[], from: number, to: number): BaseRow {
  const records: CallRecord[] = [];
  for (let i = from; i < to; i += 1) {
    const c = calls[i]!;
    if (isRowCall(c, row.attempts ?? 1)) records.push(recordOf(c, c.attribution, c.outcome));
  }
  return merged<BaseRow>(row, { calls: records.length, usage: totalsByAttribution(records) });
}

/**
 * Whether one of a job's calls counts in its row's usage: the agent's calls (a judge's are apart) of
 * the row's attempt. A cache hit spent nothing: rows count and total what was spent, as usage.json's
 * report does. A retried job's row is its last attempt's: earlier attempts' calls stay in usage.json only.
 */
export function isRowCall(c: CallRow, attempt: number): c is CallRow & { attribution: CallAttribution; outcome: CallRecord['outcome'] } {
  return c.attribution !== GRADING && c.outcome !== CACHED && attemptOfName(c.call_id) === attempt;
}

/** A usage row of the agent as the record usage.json aggregates (its id is unique within the job); a judge's are apart. */
export function recordOf(c: CallRow, attribution: CallAttribution, outcome: CallRecord['outcome']): CallRecord {
  const r: CallRecord = { callId: c.call_id, attribution, outcome, model: c.model };
  if (c.usage) r.usage = c.usage;
  return r;
}

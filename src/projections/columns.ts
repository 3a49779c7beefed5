import { merged } from '../core/index.js';
import type { StoredEvent } from '../events/index.js';
import type { RowAnswerFields } from './answers.js';
import { baseRows, baseRowsFold, takeBaseRow, type BaseRow, type BaseState, type JobStart } from './base-row.js';
import { jobFactsOf, type JobFacts } from './row-core.js';
import { isRoutedTo, type RoutedEvent } from './fold/routing.js';
import type { CallRow } from './usage/index.js';

/**
 * A suite's own columns of a job's row: a fold over that job's events from its JobStarted on,
 * merged with the job's base row by job id into the row the suite publishes.
 */
export interface JobColumns<S, R extends Record<string, unknown>> {
  /** The job's state as it starts (a JobStarted again starts it afresh). */
  start(job: JobStart): S;
  /** Folds one event of the job (those routed to `columns`); its switch is closed with assertNever. */
  evolve(state: S, e: RoutedEvent<'columns'>): S;
  /** The published row of the job; null when the job is none of the suite's rows (e.g. no plan facts). */
  row(base: BaseRow, state: S): R | null;
}

/** State of a run's rows: the base rows, and each started job's columns, both by job id. */
export interface RowsState<S> {
  base: BaseState;
  columns: Map<string, S>;
}

/** An empty rows state. */
export function initialRows<S>(): RowsState<S> {
  return { base: baseRowsFold.initialState(), columns: new Map() };
}

/** Folds one event into the base rows and into the columns of its job. */
export function evolveRows<S, R extends Record<string, unknown>>(columns: JobColumns<S, R>, s: RowsState<S>, e: StoredEvent): RowsState<S> {
  if (isRoutedTo('rows', e)) s.base = baseRowsFold.evolve(s.base, e);
  if (e.type === 'JobStarted') {
    const job = s.base.jobs.get(e.jobId!);
    if (job) s.columns.set(job.start.jobId, columns.start(job.start));
  } else if (e.jobId !== undefined && isRoutedTo('columns', e)) {
    const state = s.columns.get(e.jobId);
    if (state !== undefined || s.columns.has(e.jobId)) s.columns.set(e.jobId, columns.evolve(state!, e));
  }
  return s;
}

/** A published row with the engine's facts of its job, for the row's core. */
export interface PublishedRow<R> {
  row: R;
  job: JobFacts;
}

/**
 * The published rows: every started job's base row (with its attempts, `calls`, from the usage
 * projection, sorted by job id) merged with its columns, in job-id order unless the suite orders them otherwise;
 * with `answers`, each row also gets its job's answer fields (input, output, expected, verdict, reason).
 */
export function publishRows<S, R extends Record<string, unknown>>(
  columns: JobColumns<S, R>,
  s: RowsState<S>,
  calls: readonly CallRow[],
  compare?: (a: R, b: R) => number,
  answers?: ReadonlyMap<string, RowAnswerFields>,
): R[] {
  return publishWithJobs(columns, s, calls, compare, answers).map((p) => p.row);
}

/** `publishRows`, each row beside its job's facts (the core's, from its base row), in the rows' order. */
export function publishWithJobs<S, R extends Record<string, unknown>>(
  columns: JobColumns<S, R>,
  s: RowsState<S>,
  calls: readonly CallRow[],
  compare?: (a: R, b: R) => number,
  answers?: ReadonlyMap<string, RowAnswerFields>,
): PublishedRow<R>[] {
  const out: PublishedRow<R>[] = [];
  for (const { row, start } of baseRows(s.base, calls)) {
    const published = s.columns.has(start.jobId) ? columns.row(row, s.columns.get(start.jobId)!) : null;
    const fields = answers?.get(start.jobId);
    // Every suite's row says how many attempts a retried job had (outputs sort keys, so where does not matter);
    // a suite's own column of the same name as an answer field (a user suite's `output`, say) is kept over it.
    const attempts = row.attempts === undefined ? {} : { attempts: row.attempts };
    // merged, not spread: rows are kept until written, and a spread row holds a hidden class of its own on Node 20.
    if (published !== null) out.push({ row: fields ? merged<R>(fields, published, attempts) : merged<R>(published, attempts), job: jobFactsOf(row) });
  }
  return compare ? out.sort((a, b) => compare(a.row, b.row)) : out;
}

/**
 * One job's published row as the fold has it now (with `calls`, its attempts sorted by call id),
 * without the answer fields (the caller merges them under it, as `publishWithJobs` does); the job's
 * state is then forgotten. Null when the job never started or is none of the suite's rows.
 */
export function takeRow<S, R extends Record<string, unknown>>(columns: JobColumns<S, R>, s: RowsState<S>, jobId: string, calls: readonly CallRow[]): R | null {
  const has = s.columns.has(jobId);
  const state = s.columns.get(jobId);
  s.columns.delete(jobId);
  const taken = takeBaseRow(s.base, jobId, calls);
  if (!taken || !has) return null;
  const published = columns.row(taken.row, state!);
  if (published === null) return null;
  return taken.row.attempts === undefined ? merged<R>(published) : merged<R>(published, { attempts: taken.row.attempts });
}

/** The ids of the jobs the fold still holds, in job-id order. */
export function heldJobs(s: RowsState<unknown>): string[] {
  return [...s.base.jobs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

// The canonical row core: what every suite's row says of its job, under one set of names, so the
// viewer, the comparison and any generic tool read a row without knowing its suite. A suite's row
// extends the core; rows whose published shape is fixed by a spec (and so names things otherwise)
// give their report a `core` that maps them, and everything generic reads only that.
import { isRowCall, recordOf, type BaseRow } from './base-row.js';
import { totalsByAttribution } from './usage/report.js';
import type { CallAttribution, CallRecord, CallRow, UsageTotals } from './usage/index.js';

/** The core of one row. */
export interface RowCore {
  job_id: string;
  case_id: string;
  arm: string;
  repetition: number;
  status: BaseRow['status'];
  /** The job's verdict; null when the suite does not grade (or has not yet graded) it. */
  passed: boolean | null;
  /** The job's time as the suite reports it, null when it has none yet. */
  seconds: number | null;
  /** The job's attempts as usage.json counts them, by attribution (a judge's calls apart). */
  usage: Record<CallAttribution, UsageTotals>;
}

/**
 * What the engine knows of every job, whatever its suite (from its base row): the core but the
 * verdict, which only the suite knows. `seconds` is the job's, from JobStarted to its end.
 */
export type JobCore = Omit<RowCore, 'passed'>;

/** A suite's mapping of one of its rows to the core, given its job's facts (`ReportSpec.core`). */
export type CoreOf<R> = (row: R, job: JobCore) => RowCore;

/** The core fields a row must carry by name when its suite gives no `core`, and what each must be. */
const NAMED: readonly [keyof Omit<RowCore, 'usage'>, string, (v: unknown) => boolean][] = [
  ['job_id', 'a string', (v) => typeof v === 'string'],
  ['case_id', 'a string', (v) => typeof v === 'string'],
  ['arm', 'a string', (v) => typeof v === 'string'],
  ['repetition', 'a whole number', (v) => Number.isInteger(v)],
  ['status', 'succeeded, failed or unfinished', (v) => v === 'succeeded' || v === 'failed' || v === 'unfinished'],
  ['passed', 'true, false or null', (v) => v === null || typeof v === 'boolean'],
  ['seconds', 'a number or null', (v) => v === null || (typeof v === 'number' && Number.isFinite(v))],
];

/** A row does not give the core: a field is missing or of another type (its suite's report renames it without a `core`). */
export class RowCoreError extends Error {
  override name = 'RowCoreError';
  constructor(
    readonly jobId: string,
    readonly field: string,
    expected: string,
  ) {
    super(`the row of job ${jobId} has no core field \`${field}\` (${expected}): a suite whose rows name it otherwise gives its report a \`core\``);
  }
}

/** A suite's report made by hand (not by `defineReport`) gives no cores of its rows. */
export class NoRowCoresError extends Error {
  override name = 'NoRowCoresError';
  constructor(readonly suite: string) {
    super(`the report of suite ${suite} gives no row cores: make it with defineReport (or pass its output's \`cores\` on)`);
  }
}

/** What a published row keeps of its job until its core is asked for: the job's core but its usage, and the attempt the row is of. */
export type JobFacts = Omit<JobCore, 'usage'> & { attempt: number };

/**
 * The engine's facts of a job, kept beside its row. Its usage is not kept: it is the run's calls
 * (usage.json's, which the outputs keep anyway) and is summed again only for a reader of cores,
 * so a run that only writes its files holds no second copy of every job's usage.
 */
export function jobFactsOf(base: BaseRow): JobFacts {
  return {
    job_id: base.job_id,
    case_id: base.case_id,
    arm: base.arm,
    repetition: base.repetition,
    status: base.status,
    seconds: base.seconds,
    attempt: base.attempts ?? 1,
  };
}

/** Each job's core from its facts and the run's calls (sorted by job id, as usage.json lists them): its usage exactly as its base row counts it. */
export function jobCores(facts: readonly JobFacts[], calls: readonly CallRow[]): JobCore[] {
  const attempts = new Map(facts.map((f) => [f.job_id, f.attempt]));
  const records = new Map<string, CallRecord[]>();
  for (const c of calls) {
    const attempt = attempts.get(c.job_id);
    if (attempt === undefined || !isRowCall(c, attempt)) continue;
    const list = records.get(c.job_id) ?? [];
    records.set(c.job_id, list);
    list.push(recordOf(c, c.attribution, c.outcome));
  }
  return facts.map(({ attempt: _a, ...f }) => ({ ...f, usage: totalsByAttribution(records.get(f.job_id) ?? []) }));
}

/**
 * The default mapping, for rows that carry the core's names (the generic row of smoke, dataset,
 * coding and user suites): each field read from the row by its name, checked, and the usage by
 * attribution from the job (a row's own `usage` is its suite's breakdown, not the core's).
 */
export function namedCore(row: Record<string, unknown>, job: Pick<JobCore, 'job_id' | 'usage'>): RowCore {
  const { job_id, case_id, arm, repetition, status, passed, seconds } = row;
  return checkedCore({ job_id, case_id, arm, repetition, status, passed, seconds, usage: job.usage } as RowCore, job);
}

/** A suite's `core` result checked (a user suite's file is not type-checked): a field of another type is a RowCoreError. */
export function checkedCore(core: RowCore, job: Pick<JobCore, 'job_id'>): RowCore {
  for (const [field, expected, ok] of NAMED) if (!ok(core[field])) throw new RowCoreError(job.job_id, field, expected);
  return core;
}

import type { StoredEvent } from '../events/index.js';

/** A job's outcome as the viewer colours it. */
export type Outcome = 'pass' | 'fail' | 'error' | 'done' | 'running';

/** One row of the rows table: the suite's row seen through one lens, whatever its suite. */
export interface ViewRow {
  job_id: string | null;
  case: string;
  arm: string;
  repetition: number | null;
  outcome: Outcome;
  tokens: number | null;
  /** False when some call of the job did not report usage: `tokens` is then a lower bound. */
  tokens_complete: boolean;
  seconds: number | null;
}

/** A row as the run page's table shows it: the view and what a reader looks for (src/projections/answers.ts), null where the suite's row has none. */
export interface TableRow extends ViewRow {
  input: string | null;
  output: string | null;
  expected: string | null;
  reason: string | null;
  /** Each check's pass or fail, where the row has a `checks` map (the generic row). */
  checks: Record<string, boolean> | null;
  /** A numeric score: the row's own `score`, else the share of its checks that passed; null without either. */
  score: number | null;
}

/** What the events say of each job, for what a suite's row shape may not name. */
export interface JobFacts {
  caseId: string;
  arm: string;
  repetition: number;
  ended: 'succeeded' | 'failed' | null;
}

/** Facts of every started job, by job id. */
export function jobFacts(events: readonly StoredEvent[]): Map<string, JobFacts> {
  const jobs = new Map<string, JobFacts>();
  for (const e of events) {
    if (e.type === 'JobStarted') jobs.set(e.jobId!, { caseId: e.data.caseId, arm: e.data.arm, repetition: e.data.repetition, ended: null });
    else if (e.type === 'JobSucceeded' || e.type === 'JobFailed') {
      const j = jobs.get(e.jobId!);
      if (j) j.ended = e.type === 'JobSucceeded' ? 'succeeded' : 'failed';
    }
  }
  return jobs;
}

const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const bool = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

/**
 * Suites publish rows of their own shapes (the generic row, context-snapshot's protocol row,
 * context-engineering's cell row, memory-eviction's answer row); the viewer reads the few fields
 * it needs by the names those shapes use, and the job's identity from its events.
 */
export function viewRow(r: Record<string, unknown>, facts: ReadonlyMap<string, JobFacts>): ViewRow {
  const jobId = str(r.job_id);
  const f = jobId === null ? undefined : facts.get(jobId);
  const passed = bool(r.passed) ?? bool(r.artifact_correct) ?? bool(r.success);
  const { tokens, complete } = tokensOf(r.usage);
  let outcome: Outcome;
  if (f && f.ended === null) outcome = 'running';
  else if (f?.ended === 'failed' || r.status === 'failed') outcome = 'error';
  else if (r.status === 'unfinished') outcome = 'running';
  else outcome = passed === true ? 'pass' : passed === false ? 'fail' : 'done';
  return {
    job_id: jobId,
    case: f?.caseId ?? str(r.case_id) ?? str(r.case) ?? str(r.question_id) ?? str(r.row_id) ?? '?',
    arm: f?.arm ?? str(r.arm) ?? str(r.cell) ?? str(r.policy) ?? '?',
    repetition: f?.repetition ?? num(r.repetition),
    outcome,
    tokens,
    tokens_complete: complete,
    seconds: num(r.seconds) ?? num(r.wall_seconds),
  };
}

/** `viewRow` with the answer fields, checks and score of the row. */
export function tableRow(r: Record<string, unknown>, facts: ReadonlyMap<string, JobFacts>): TableRow {
  return {
    ...viewRow(r, facts),
    input: str(r.input),
    output: str(r.output),
    expected: r.expected === undefined || r.expected === null ? null : (str(r.expected) ?? JSON.stringify(r.expected)),
    reason: str(r.reason),
    checks: checksOf(r.checks),
    score: scoreOf(r),
  };
}

function checksOf(v: unknown): Record<string, boolean> | null {
  if (!obj(v)) return null;
  const out: Record<string, boolean> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'boolean') out[k] = x;
  return Object.keys(out).length > 0 ? out : null;
}

function scoreOf(r: Record<string, unknown>): number | null {
  const own = num(r.score);
  if (own !== null) return own;
  const passed = num(r.checks_passed);
  const total = num(r.checks_total);
  return passed !== null && total !== null && total > 0 ? passed / total : null;
}

function tokensOf(u: unknown): { tokens: number | null; complete: boolean } {
  if (!obj(u)) return { tokens: null, complete: false };
  if (obj(u.total)) return { tokens: num(u.total.total_tokens), complete: u.total.complete !== false }; // generic row
  if (obj(u.total_tokens)) return { tokens: num(u.total_tokens.sum), complete: num(u.total_tokens.unknown_calls) === 0 }; // cell row
  return { tokens: num(u.total_tokens), complete: u.complete !== false && typeof u.total_tokens === 'number' }; // protocol and answer rows
}

// The run page's rows table, done on the server: a 10 000-job run would send megabytes of inputs
// and outputs to the browser to filter them there, while a page of matching rows is a few kilobytes,
// and downloads and the job page's previous/next then use the very same filter and order.
import type { StoredEvent } from '../events/index.js';
import { HttpError } from './errors.js';
import type { Outcome, TableRow } from './rows.js';

/** Columns the table sorts by. */
export const SORT_KEYS = ['job_id', 'case', 'arm', 'repetition', 'outcome', 'score', 'tokens', 'seconds'] as const;
/** One of `SORT_KEYS`. */
export type SortKey = (typeof SORT_KEYS)[number];

/** The view's field a sort key orders by: the column is `case`, the core's field `case_id`. */
const SORTED_BY: Record<SortKey, keyof TableRow> = {
  job_id: 'job_id',
  case: 'case_id',
  arm: 'arm',
  repetition: 'repetition',
  outcome: 'outcome',
  score: 'score',
  tokens: 'tokens',
  seconds: 'seconds',
};

const OUTCOMES: readonly Outcome[] = ['pass', 'fail', 'error', 'done', 'running'];
/** Rows a page holds unless asked otherwise, and at most. */
export const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/** Filters, search, sort and page: the same parameters in the page's URL hash and in the API's query. */
export interface TableQuery {
  /** Words that must all occur (any case) in the job's input, output, expected value, reason or check details. */
  q: string;
  /** Text the case id contains. */
  case: string;
  arm: string;
  outcome: Outcome | '';
  sort: SortKey;
  dir: 'asc' | 'desc';
  /** 1-based. */
  page: number;
  size: number;
}

/** Reads the query; a value it cannot use is a 400 naming the parameter. */
export function tableQuery(p: URLSearchParams): TableQuery {
  const sort = p.get('sort') ?? 'job_id';
  if (!(SORT_KEYS as readonly string[]).includes(sort)) throw new HttpError(400, `sort must be one of ${SORT_KEYS.join(', ')}, not ${JSON.stringify(sort)}`);
  const dir = p.get('dir') ?? 'asc';
  if (dir !== 'asc' && dir !== 'desc') throw new HttpError(400, `dir must be asc or desc, not ${JSON.stringify(dir)}`);
  const outcome = p.get('outcome') ?? '';
  if (outcome !== '' && !(OUTCOMES as readonly string[]).includes(outcome)) throw new HttpError(400, `outcome must be one of ${OUTCOMES.join(', ')}`);
  return {
    q: (p.get('q') ?? '').trim(),
    case: (p.get('case') ?? '').trim(),
    arm: p.get('arm') ?? '',
    outcome: outcome as TableQuery['outcome'],
    sort: sort as SortKey,
    dir,
    page: whole(p, 'page', 1, 1, Number.MAX_SAFE_INTEGER),
    size: whole(p, 'size', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };
}

function whole(p: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const v = p.get(name);
  if (v === null || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new HttpError(400, `${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(v)}`);
  return n;
}

/** One row as the table holds it: the view, the suite's row unchanged (for downloads) and the lower-cased text search looks in. */
export interface IndexedRow {
  view: TableRow;
  row: Record<string, unknown>;
  text: string;
}

/** The rows of one derivation of a run, ready to filter. */
export interface RunIndex {
  rows: IndexedRow[];
  byJob: Map<string, IndexedRow>;
}

/** Every check's id and detail by job: the row keeps only the deciding one (its reason). */
function checkDetails(events: readonly StoredEvent[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of events) {
    if (e.type !== 'CheckEvaluated' || e.jobId === undefined) continue;
    const list = out.get(e.jobId) ?? [];
    out.set(e.jobId, list);
    list.push(`${e.data.checkId}: ${e.data.detail}`);
  }
  return out;
}

/** Indexes rows (the suite's and their views, index for index) with the check details of the same events. */
export function runIndex(rows: readonly Record<string, unknown>[], views: readonly TableRow[], events: readonly StoredEvent[]): RunIndex {
  const details = checkDetails(events);
  const indexed = rows.map((row, i): IndexedRow => {
    const v = views[i]!;
    const parts = [v.input, v.output, v.expected, v.reason, ...(details.get(v.job_id) ?? [])];
    return {
      view: v,
      row,
      text: parts
        .filter((x) => x !== null)
        .join('\n')
        .toLowerCase(),
    };
  });
  const byJob = new Map<string, IndexedRow>();
  for (const r of indexed) byJob.set(r.view.job_id, r);
  return { rows: indexed, byJob };
}

/** Nulls last whichever the direction: a missing figure is not the smallest nor the largest. */
function compareValues(a: unknown, b: unknown, sign: number): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return sign * ((a as number | string) < (b as number | string) ? -1 : 1);
}

/** The rows the query lets through, in its order (ties by job id); page and size are not applied. */
export function matching(index: RunIndex, q: TableQuery): IndexedRow[] {
  const words = q.q.toLowerCase().split(/\s+/).filter(Boolean);
  const needle = q.case.toLowerCase();
  const sign = q.dir === 'desc' ? -1 : 1;
  const by = SORTED_BY[q.sort];
  return index.rows
    .filter(
      (r) =>
        (needle === '' || r.view.case_id.toLowerCase().includes(needle)) &&
        (q.arm === '' || r.view.arm === q.arm) &&
        (q.outcome === '' || r.view.outcome === q.outcome) &&
        words.every((w) => r.text.includes(w)),
    )
    .sort((a, b) => compareValues(a.view[by], b.view[by], sign) || compareValues(a.view.job_id, b.view.job_id, 1));
}

/** One page of the table. */
export interface TablePage {
  /** Rows of the run; `matched` of them pass the filters. */
  total: number;
  matched: number;
  page: number;
  size: number;
  pages: number;
  rows: TableRow[];
}

/** The page the query asks for (the last one when it asks past the end). */
export function tablePage(index: RunIndex, q: TableQuery): TablePage {
  const shown = matching(index, q);
  const pages = Math.max(1, Math.ceil(shown.length / q.size));
  const page = Math.min(q.page, pages);
  return {
    total: index.rows.length,
    matched: shown.length,
    page,
    size: q.size,
    pages,
    rows: shown.slice((page - 1) * q.size, page * q.size).map((r) => r.view),
  };
}

/** A job's place in the filtered, sorted table: the jobs before and after it, its position (1-based) or null when the filters leave it out. */
export interface JobNeighbours {
  prev: string | null;
  next: string | null;
  position: number | null;
  matched: number;
  /** The job's row (with its input, output and expected value), null when the run has no row for it. */
  row: TableRow | null;
  /** The suite's row as rows.jsonl holds it, for the job page's details; null with `row`. */
  raw: Record<string, unknown> | null;
}

/** Previous and next job in the query's order. */
export function neighbours(index: RunIndex, q: TableQuery, jobId: string): JobNeighbours {
  const linked = matching(index, q);
  const i = linked.findIndex((r) => r.view.job_id === jobId);
  const own = index.byJob.get(jobId);
  const rows = { row: own?.view ?? null, raw: own?.row ?? null };
  if (i < 0) return { prev: null, next: null, position: null, matched: linked.length, ...rows };
  return { prev: linked[i - 1]?.view.job_id ?? null, next: linked[i + 1]?.view.job_id ?? null, position: i + 1, matched: linked.length, ...rows };
}

import { assertNever } from '../../core/never.js';
import type { Usage } from '../../events/index.js';
import type { Projection } from '../fold/projection.js';
import { routed, type RoutedEvent } from '../fold/routing.js';
import { own } from '../../core/strings.js';
import {
  aggregateDistinctUsage,
  normalizeRecord,
  ReportAccumulator,
  totalsOf,
  TotalsAccumulator,
  type CallRecord,
  type CallUsage,
  type UsageField,
  type UsageReport,
  type UsageTotals,
} from './report.js';

/** One call attempt as listed in usage.json. */
export interface CallRow {
  job_id: string;
  call_id: string;
  /** `grading`: a model-graded check's judge, counted in `grading`, never in the agent's report. */
  attribution: CallRecord['attribution'] | typeof GRADING;
  /** `cached`: answered from the response cache (or a regrade's source run), nothing spent: in `cached`, never in the report. */
  outcome: CallRecord['outcome'] | typeof CACHED;
  /** failure kind, or the finish reason of a success ("length" = truncated). */
  detail: string | null;
  model: string;
  latency_ms: number | null;
  /** The call's usage record fields (as `callUsage` maps them), null when none was reported. */
  usage: CallUsage | null;
}

/** The attribution of judge calls: apart from the agent's usage everywhere. */
export const GRADING = 'grading';

/** The outcome of a call the response cache answered: its tokens were not spent by this run. */
export const CACHED = 'cached';

/**
 * usage.json: the report of the agent's calls, every call attempt sorted by job and call id, and,
 * when the run had model-graded checks, `grading`: the judge calls' totals, in the shape of one
 * attribution's report (absent otherwise, so runs without a judge keep their usage.json), and,
 * when the response cache answered some calls, `cached`: their totals, tokens as first reported,
 * apart from the report of what was spent (absent otherwise).
 */
export interface UsageFile {
  report: UsageReport;
  calls: CallRow[];
  grading?: UsageTotals;
  cached?: UsageTotals;
}

/**
 * Maps reported OpenAI-style usage to report field names as reported: `prompt` → inputTokens
 * (which, OpenAI-style, includes cached prompt tokens). Used by rows.jsonl; a field the provider
 * left out stays absent.
 */
export function usageFields(u: Usage | null): Partial<Record<UsageField, number>> | undefined {
  if (!u) return undefined;
  const out: Partial<Record<UsageField, number>> = {};
  if (u.prompt !== null) out.inputTokens = u.prompt;
  if (u.completion !== null) out.outputTokens = u.completion;
  if (u.total !== null) out.totalTokens = u.total;
  if (typeof u.cached === 'number') out.cacheReadTokens = u.cached;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Maps reported OpenAI-style usage to a usage record with DeepSeek Harness `TokenUsage` meaning,
 * where the counts are disjoint: inputTokens excludes the cache reads, as DSH adapters subtract
 * DeepSeek cache hits. `prompt_tokens_details.cached_tokens` is cacheReadTokens as reported; when
 * it is reported, inputTokens is prompt − cached (absent when prompt is unknown or smaller than
 * cached). totalTokens only as reported, never synthesised. Undefined when nothing is known.
 */
export function callUsage(u: Usage | null): CallUsage | undefined {
  if (!u) return undefined;
  const out: CallUsage = {};
  const cached = typeof u.cached === 'number' ? u.cached : null;
  if (u.prompt !== null && (cached === null || cached <= u.prompt)) out.inputTokens = cached === null ? u.prompt : u.prompt - cached;
  if (u.completion !== null) out.outputTokens = u.completion;
  if (u.total !== null) out.totalTokens = u.total;
  if (cached !== null) out.cacheReadTokens = cached;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** State of the usage projection: the run and every attempt. */
export interface UsageState {
  runId: string | null;
  /** Every attempt, in the order requested. */
  rows: CallRow[];
  /** Attempts waiting for their outcome, by `<jobId>/<callId>`: settled ones leave, so it holds the calls in flight. */
  pending: Map<string, CallRow>;
  /** One copy of each repeated short string (call ids, models, details): rows are kept to the end. */
  strings: Map<string, string>;
  /** One copy of each job id, for all its attempts' rows (5.5 a job in the rebuild bench). */
  jobIds: Map<string, string>;
}

/** What an attempt's events update: the run, the attempts in flight and the shared strings (the usage state, and the streaming outputs' own). */
export type CallFoldState = Pick<UsageState, 'runId' | 'pending' | 'strings' | 'jobIds'>;

function intern(state: CallFoldState, s: string): string {
  const got = state.strings.get(s);
  if (got !== undefined) return got;
  const mine = own(s);
  // Bounded: only low-cardinality strings go through here.
  if (state.strings.size < 10_000) state.strings.set(mine, mine);
  return mine;
}

function jobIdOf(state: CallFoldState, jobId: string): string {
  const got = state.jobIds.get(jobId);
  if (got !== undefined) return got;
  const mine = own(jobId);
  state.jobIds.set(mine, mine);
  return mine;
}

/** Each attribution as one module constant: every row shares it instead of holding its decoded copy. */
const ATTRIBUTION = { main: 'main', query: 'query', child: 'child', unknown: 'unknown', grading: GRADING } as const satisfies Record<
  CallRow['attribution'],
  CallRow['attribution']
>;

/** The usage projection: one row per call attempt, aggregated into the report. */
export const usageProjection: Projection<UsageState, UsageFile> = routed('usage', {
  initialState: (): UsageState => ({ runId: null, rows: [], pending: new Map(), strings: new Map(), jobIds: new Map() }),
  evolve(state: UsageState, e) {
    evolveCall(state, e, (row) => state.rows.push(row));
    return state;
  },
  result(state: UsageState) {
    const rows = sortedRows(state);
    // One attempt per `<jobId>/<callId>` key, so the records' callIds are distinct.
    const report = aggregateDistinctUsage(callRecordsOf(state.runId ?? '', rows));
    const judged = rows.filter((r) => r.attribution === GRADING && r.outcome !== CACHED);
    const hits = rows.filter((r) => r.outcome === CACHED);
    return {
      report,
      calls: rows,
      ...(judged.length === 0 ? {} : { grading: totalsOf(judged.map((r) => recordOf(state.runId ?? '', r))) }),
      ...(hits.length === 0 ? {} : { cached: totalsOf(hits.map((r) => recordOf(state.runId ?? '', r))) }),
    };
  },
});

/** Folds one attempt's event; a newly requested attempt's row is handed to `push` (and stays in `pending` until it settles). */
export function evolveCall(state: CallFoldState, e: RoutedEvent<'usage'>, push: (row: CallRow) => void): void {
  state.runId ??= e.runId;
  const jobId = e.jobId ?? '_run';
  const key = `${jobId}/${e.data.callId}`;
  switch (e.type) {
    case 'ProviderCallRequested': {
      // An attempt with no recorded outcome (a crash in flight) stays "unknown": it is not invented away.
      const row: CallRow = {
        job_id: jobIdOf(state, jobId),
        call_id: intern(state, e.data.callId),
        attribution: ATTRIBUTION[e.data.attribution],
        outcome: 'unknown',
        detail: null,
        model: intern(state, e.data.model),
        latency_ms: null,
        usage: null,
      };
      const again = state.pending.get(key);
      if (again)
        Object.assign(again, row); // the same attempt requested again: one row, the latest
      else {
        push(row);
        state.pending.set(key, row);
      }
      break;
    }
    case 'ProviderCallSucceeded': {
      const row = settle(state, key, e.data.latencyMs);
      if (!row) break;
      row.outcome = e.data.cached === undefined ? 'success' : CACHED;
      row.detail = e.data.finishReason === null ? null : intern(state, e.data.finishReason);
      row.usage = callUsage(e.data.usage) ?? null;
      break;
    }
    case 'ProviderCallFailed': {
      const row = settle(state, key, e.data.latencyMs);
      if (!row) break;
      // A cut-off attempt (recorded on resume) may have reached the provider: outcome and cost unknown.
      row.outcome = e.data.kind === 'aborted' ? 'aborted' : e.data.kind === 'unknown' ? 'unknown' : 'failure';
      row.detail = intern(state, e.data.kind);
      if (e.data.kind === 'unknown') row.latency_ms = null;
      break;
    }
    default:
      assertNever(e);
  }
}

/**
 * usage.json beside its calls, from the calls in its order, one at a time: what `result` gives, for
 * the streaming outputs, which read the calls back from a spill instead of holding them.
 */
export function usageTotalsOf(runId: string, calls: Iterable<CallRow>): Omit<UsageFile, 'calls'> {
  const report = new ReportAccumulator();
  const grading = new TotalsAccumulator();
  const cached = new TotalsAccumulator();
  let judged = 0;
  let hits = 0;
  for (const r of calls) {
    if (r.outcome === CACHED) {
      hits += 1;
      cached.add(recordOf(runId, r));
    } else if (r.attribution === GRADING) {
      judged += 1;
      grading.add(recordOf(runId, r));
    } else report.add(normalizeRecord(recordOf(runId, r)));
  }
  return { report: report.result([]), ...(judged === 0 ? {} : { grading: grading.result() }), ...(hits === 0 ? {} : { cached: cached.result() }) };
}

/** The pending attempt of `key`, now settled (it leaves the pending ones), with its latency; undefined for none. */
function settle(state: CallFoldState, key: string, latencyMs: number): CallRow | undefined {
  const row = state.pending.get(key);
  if (!row) return undefined;
  state.pending.delete(key);
  row.latency_ms = latencyMs;
  return row;
}

/** The rows of a folded state, sorted by job and call id. */
export function sortedRows(state: UsageState): CallRow[] {
  return [...state.rows].sort((a, b) => cmp(a.job_id, b.job_id) || cmp(a.call_id, b.call_id));
}

/**
 * The call records of one run's agent rows, as aggregation sees them: callId `<runId>/<jobId>/<callId>`
 * (unique across runs), usage only when reported; judge calls (`grading`) are not the agent's and cache hits were not
 * spent, so both are left out. The live usage.json and `evalog usage` on an
 * export both go through this, so they give the same report.
 */
export function callRecords(runId: string, rows: readonly CallRow[]): CallRecord[] {
  return [...callRecordsOf(runId, rows)];
}

/** callRecords one at a time (nothing kept). */
function* callRecordsOf(runId: string, rows: readonly CallRow[]): Generator<CallRecord> {
  for (const r of rows) if (r.attribution !== GRADING && r.outcome !== CACHED) yield recordOf(runId, r);
}

function recordOf(runId: string, r: CallRow): CallRecord {
  return {
    callId: `${runId}/${r.job_id}/${r.call_id}`,
    attribution: r.attribution === GRADING ? 'unknown' : r.attribution,
    // A cache hit is totalled (apart) as the success it first was.
    outcome: r.outcome === CACHED ? 'success' : r.outcome,
    model: r.model,
    ...(r.usage ? { usage: r.usage } : {}),
  };
}

/** Code-unit string order, the same on every platform and locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

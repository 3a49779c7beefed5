// The per-cell roll-up across repetitions that the context-engineering protocol asks for: each
// repetition of a cell (one pass of the cell over the scenarios) keeps its own usage report, and
// the cell is summed up over them: success rate, failure composition, calls, the distribution of
// known tokens over the repetitions, the share of calls without usage, cache reads and writes, and
// latency. A pure function of the rows and the recorded calls, so a rebuild gives the same bytes.
import { aggregateUsage, callRecords, cmp } from 'evalog';
import type { CallRow, FieldTotal, UsageReport } from 'evalog';
import type { CeRow } from './rows.js';

/** A distribution of numbers: null statistics when there is none. p95 is the nearest-rank one. */
export interface Distribution {
  n: number;
  min: number | null;
  median: number | null;
  mean: number | null;
  p95: number | null;
  max: number | null;
}

/** A usage field over the cell's calls: the known sum beside the known and unknown call counts (null = none known). */
export interface KnownSum {
  sum: number | null;
  known_calls: number;
  unknown_calls: number;
}

/** A token field: its sum over the cell, and its distribution over the repetitions whose sum is known. */
export interface TokenRollup extends KnownSum {
  per_repetition: Distribution;
  /** Repetitions in which no call reported the field: left out of the distribution, never counted as 0. */
  unknown_repetitions: number;
}

/** One cell over every repetition and scenario it ran. */
export interface CeCellRollup {
  repetitions: number;
  jobs: number;
  success: { successes: number; jobs: number; rate: number | null };
  /** Jobs that fell short, and how often each failure type occurs among them (a job may have several). */
  failures: { jobs: number; by_type: Record<string, number> };
  /** Every attempt (retries and failed ones count); `failed` are failures and aborts, `failed_by_kind` their recorded kinds. */
  calls: { total: number; main: number; query: number; child: number; unknown: number; failed: number; failed_by_kind: Record<string, number> };
  /** Harness injections by kind, counted apart from provider outcomes. */
  injections: Record<string, number>;
  /** Token fields as the usage report counts them (input excludes cache reads). */
  known_tokens: { input_tokens: TokenRollup; output_tokens: TokenRollup; total_tokens: TokenRollup };
  /** Calls without any reported usage over all calls (null when there were no calls). */
  unknown_usage: { calls_without_usage: number; calls: number; ratio: number | null };
  /** Cache tokens only as the provider reported them. */
  cache: { read_tokens: KnownSum; write_tokens: KnownSum };
  /** Latency of the attempts that recorded one (ms, recorded clock), and wall time of the jobs (s). */
  latency_ms: Distribution;
  wall_seconds: Distribution;
}

/** The usage report of one repetition of one cell, saved as its own file. */
export interface CeRepetitionUsage {
  run_id: string;
  cell: string;
  repetition: number;
  /** The jobs (one per scenario) of this repetition, sorted. */
  jobs: string[];
  /** The report of their agent calls, as `evalog usage` aggregates records. */
  report: UsageReport;
}

/** The file name of a repetition's usage report. */
export const repetitionFile = (cell: string, repetition: number): string => `usage.${cell}.rep-${repetition}.json`;

/** Every (cell, repetition)'s usage report, sorted by cell then repetition. */
export function repetitionReports(rows: readonly CeRow[], calls: readonly CallRow[], runId: string): CeRepetitionUsage[] {
  const byJob = new Map<string, CallRow[]>();
  for (const c of calls) {
    const list = byJob.get(c.job_id);
    if (list) list.push(c);
    else byJob.set(c.job_id, [c]);
  }
  const groups = new Map<string, { cell: string; repetition: number; jobs: string[] }>();
  for (const r of rows) {
    const key = `${r.cell}\u0000${r.repetition}`;
    const g = groups.get(key) ?? { cell: r.cell, repetition: r.repetition, jobs: [] };
    g.jobs.push(r.job_id);
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => cmp(a.cell, b.cell) || a.repetition - b.repetition)
    .map((g) => {
      const jobs = [...g.jobs].sort(cmp);
      const report = aggregateUsage(
        callRecords(
          runId,
          jobs.flatMap((j) => byJob.get(j) ?? []),
        ),
      );
      return { run_id: runId, cell: g.cell, repetition: g.repetition, jobs, report };
    });
}

/** The roll-up of each cell, from its rows, its repetitions' reports and its calls. */
export function cellRollups(rows: readonly CeRow[], reps: readonly CeRepetitionUsage[], calls: readonly CallRow[]): Record<string, CeCellRollup> {
  const out: Record<string, CeCellRollup> = {};
  for (const cell of [...new Set(rows.map((r) => r.cell))].sort(cmp)) {
    const mine = rows.filter((r) => r.cell === cell);
    const ids = new Set(mine.map((r) => r.job_id));
    out[cell] = rollup(
      mine,
      reps.filter((r) => r.cell === cell),
      calls.filter((c) => ids.has(c.job_id) && c.attribution !== 'grading'),
    );
  }
  return out;
}

function rollup(rows: readonly CeRow[], reps: readonly CeRepetitionUsage[], calls: readonly CallRow[]): CeCellRollup {
  const successes = rows.filter((r) => r.success).length;
  const failed = rows.filter((r) => !r.success);
  const reports = reps.map((r) => r.report);
  const field = (f: 'inputTokens' | 'outputTokens' | 'totalTokens' | 'cacheReadTokens' | 'cacheWriteTokens'): KnownSum =>
    sumTotals(reports.map((r) => r.usage.fields[f]));
  const tokens = (f: 'inputTokens' | 'outputTokens' | 'totalTokens'): TokenRollup => {
    const sums = reports.map((r) => r.usage.fields[f].sum);
    const known = sums.filter((s): s is number => s !== null);
    return { ...field(f), per_repetition: distribution(known), unknown_repetitions: sums.length - known.length };
  };
  const byAttribution = (a: 'main' | 'query' | 'child' | 'unknown') => reports.reduce((n, r) => n + r.byAttribution[a].calls, 0);
  const total = reports.reduce((n, r) => n + r.calls, 0);
  const without = reports.reduce((n, r) => n + r.usage.callsWithoutUsage, 0);
  const injections: Record<string, number> = {};
  for (const r of rows) for (const [k, v] of Object.entries(r.injections)) injections[k] = (injections[k] ?? 0) + v;
  return {
    repetitions: reps.length,
    jobs: rows.length,
    success: { successes, jobs: rows.length, rate: rows.length > 0 ? successes / rows.length : null },
    failures: { jobs: failed.length, by_type: tally(failed.flatMap((r) => r.failure_types)) },
    calls: {
      total,
      main: byAttribution('main'),
      query: byAttribution('query'),
      child: byAttribution('child'),
      unknown: byAttribution('unknown'),
      failed: reports.reduce((n, r) => n + r.failed.calls, 0),
      failed_by_kind: tally(calls.filter((c) => c.outcome === 'failure' || c.outcome === 'aborted').map((c) => c.detail ?? 'unknown')),
    },
    injections: sortedRecord(injections),
    known_tokens: { input_tokens: tokens('inputTokens'), output_tokens: tokens('outputTokens'), total_tokens: tokens('totalTokens') },
    unknown_usage: { calls_without_usage: without, calls: total, ratio: total > 0 ? without / total : null },
    cache: { read_tokens: field('cacheReadTokens'), write_tokens: field('cacheWriteTokens') },
    latency_ms: distribution(calls.flatMap((c) => (c.latency_ms === null ? [] : [c.latency_ms]))),
    wall_seconds: distribution(rows.flatMap((r) => (r.wall_seconds === null ? [] : [r.wall_seconds]))),
  };
}

function sumTotals(totals: readonly FieldTotal[]): KnownSum {
  let sum: number | null = null;
  let known = 0;
  let unknown = 0;
  for (const t of totals) {
    if (t.sum !== null) sum = (sum ?? 0) + t.sum;
    known += t.knownCalls;
    unknown += t.unknownCalls;
  }
  return { sum, known_calls: known, unknown_calls: unknown };
}

/** Min, median (mean of the middle two for an even count), mean, nearest-rank p95 and max; summed in sorted order, so the same on every run. */
export function distribution(values: readonly number[]): Distribution {
  const s = [...values].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return { n, min: null, median: null, mean: null, p95: null, max: null };
  const mid = n >> 1;
  return {
    n,
    min: s[0]!,
    median: n % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2,
    mean: s.reduce((a, b) => a + b, 0) / n,
    p95: s[Math.ceil(0.95 * n) - 1]!,
    max: s[n - 1]!,
  };
}

function tally(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...keys].sort(cmp)) out[k] = (out[k] ?? 0) + 1;
  return out;
}

function sortedRecord(r: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => cmp(a, b)));
}

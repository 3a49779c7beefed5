import { compareArms, defineReport, median, pairedLine } from 'evalog';
import type { ArmJob, CallRow, CoreOf, ReportHeader, SideComparison, SuiteReport, SummaryLayout } from 'evalog';
import { cellRollups, repetitionFile, repetitionReports, type CeCellRollup, type Distribution } from './rollup.js';
import { byCellCaseRepetition, ceColumns, cmp, type CeRow, type CeUsage, type FieldSum } from './rows.js';

/** One cell on one scenario (case): how often it succeeded, how, and at what cost. */
export interface CeCellSummary {
  scenario: string | null;
  recovery: string | null;
  n: number;
  successes: number;
  failure_types: Record<string, number>;
  stop_reasons: Record<string, number>;
  state_checks: { passed: number; total: number };
  evidence: { hits: number; total: number };
  stale_misuses: number;
  duplicate_effects: number;
  calls: { main: number; query: number; failed: number; total: number };
  injections: Record<string, number>;
  usage: CeUsage;
  wall_seconds: { mean: number | null; median: number | null };
}

/** summary.json of the suite: per cell, per case; and per cell across its repetitions (`rollup`). */
export interface CeSummary {
  run_id: string;
  suite: string;
  model: string;
  scripted: boolean;
  jobs: number;
  cells: Record<string, Record<string, CeCellSummary>>;
  /** Each cell over all its repetitions and scenarios; each repetition's usage report is its own file (`usage.<cell>.rep-<n>.json`). */
  rollup: Record<string, CeCellRollup>;
  /**
   * The cells (the run's arms) compared pairwise over every scenario and repetition, as `evalog
   * compare` compares sides: empty for one cell.
   */
  paired: SideComparison[];
}

// A field's sum is known only when every call reported it; a job without calls used none.
const knownSum = (f: FieldSum): number | null => (f.unknown_calls > 0 ? null : (f.sum ?? 0));

/**
 * A row as a job of the cells' comparison: its cell is its arm, its verdict `success` when it
 * succeeded (a failed or unfinished job concluded nothing: unpaired, as compare has it), its
 * tokens known only when every call reported them, its seconds the wall time.
 */
export function ceArmJob(r: CeRow): ArmJob {
  const tokens = { input: knownSum(r.usage.input_tokens), output: knownSum(r.usage.output_tokens), total: knownSum(r.usage.total_tokens) };
  return { arm: r.cell, case_id: r.case, repetition: r.repetition, passed: r.status === 'succeeded' ? r.success : null, tokens, seconds: r.wall_seconds };
}

const tally = (keys: readonly string[]) => {
  const out: Record<string, number> = {};
  for (const k of [...keys].sort(cmp)) out[k] = (out[k] ?? 0) + 1;
  return out;
};
const addSums = (a: FieldSum, b: FieldSum): FieldSum => ({
  sum: a.sum === null && b.sum === null ? null : (a.sum ?? 0) + (b.sum ?? 0),
  known_calls: a.known_calls + b.known_calls,
  unknown_calls: a.unknown_calls + b.unknown_calls,
});

function cellCase(rows: readonly CeRow[]): CeCellSummary {
  const sum = (f: (r: CeRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  const secs = rows.map((r) => r.wall_seconds).filter((s): s is number => s !== null);
  const injections: Record<string, number> = {};
  for (const r of rows) for (const [k, v] of Object.entries(r.injections)) injections[k] = (injections[k] ?? 0) + v;
  const usage = rows
    .map((r) => r.usage)
    .reduce((a, b) => ({
      input_tokens: addSums(a.input_tokens, b.input_tokens),
      output_tokens: addSums(a.output_tokens, b.output_tokens),
      total_tokens: addSums(a.total_tokens, b.total_tokens),
    }));
  return {
    scenario: rows[0]!.scenario,
    recovery: rows[0]!.recovery,
    n: rows.length,
    successes: rows.filter((r) => r.success).length,
    failure_types: tally(rows.flatMap((r) => r.failure_types)),
    stop_reasons: tally(rows.map((r) => r.stop_reason ?? 'none')),
    state_checks: { passed: sum((r) => Object.values(r.state_checks).filter(Boolean).length), total: sum((r) => Object.keys(r.state_checks).length) },
    evidence: { hits: sum((r) => r.evidence_hits), total: sum((r) => r.evidence.length) },
    stale_misuses: sum((r) => r.stale_misuses),
    duplicate_effects: sum((r) => r.duplicate_effects),
    calls: { main: sum((r) => r.calls.main), query: sum((r) => r.calls.query), failed: sum((r) => r.calls.failed), total: sum((r) => r.calls.total) },
    injections: Object.fromEntries(Object.entries(injections).sort(([a], [b]) => cmp(a, b))),
    usage,
    wall_seconds: { mean: secs.length > 0 ? secs.reduce((a, b) => a + b, 0) / secs.length : null, median: median(secs) },
  };
}

/** Summarises rows per cell × case, and per cell across repetitions from the recorded calls; a pure function of both. */
export function summarizeCe(rows: readonly CeRow[], header: ReportHeader, calls: readonly CallRow[] = []): CeSummary {
  const cells: CeSummary['cells'] = {};
  for (const cell of [...new Set(rows.map((r) => r.cell))].sort(cmp)) {
    cells[cell] = {};
    for (const c of [...new Set(rows.filter((r) => r.cell === cell).map((r) => r.case))].sort(cmp))
      cells[cell][c] = cellCase(rows.filter((r) => r.cell === cell && r.case === c));
  }
  const rollup = cellRollups(rows, repetitionReports(rows, calls, header.runId), calls);
  const paired = compareArms(header.runId, rows.map(ceArmJob));
  return { run_id: header.runId, suite: header.suite, model: header.model, scripted: header.scripted, jobs: rows.length, cells, rollup, paired };
}

/**
 * The usage report of each repetition of each cell, by file name. This spec's usage accounting is
 * the DeepSeek Harness eval aggregator's rules, which usage.json's report (projections/usage/report.ts)
 * implements for every suite: these files and usage.json are the spec's usage reports as they are.
 */
export function ceRepetitionFiles(rows: readonly CeRow[], header: ReportHeader, calls: readonly CallRow[]): Record<string, unknown> {
  return Object.fromEntries(repetitionReports(rows, calls, header.runId).map((r) => [repetitionFile(r.cell, r.repetition), r]));
}

const tokens = (f: FieldSum) => `${f.sum ?? 'unknown'} (${f.unknown_calls} unknown)`;

/** The summary as an aligned table: one line per cell × case; unknown usage beside every token sum. */
export function ceTable(summary: CeSummary): string {
  const head = ['cell', 'scenario', 'n', 'success', 'state', 'evidence', 'stale', 'dup', 'main', 'query', 'failed', 'injected', 'tokens', 'stop', 'wall s'];
  const body: string[][] = [];
  for (const [cell, byCase] of Object.entries(summary.cells)) {
    for (const [c, s] of Object.entries(byCase)) {
      body.push([
        cell,
        c,
        String(s.n),
        `${s.successes}/${s.n}`,
        `${s.state_checks.passed}/${s.state_checks.total}`,
        `${s.evidence.hits}/${s.evidence.total}`,
        String(s.stale_misuses),
        String(s.duplicate_effects),
        String(s.calls.main),
        String(s.calls.query),
        String(s.calls.failed),
        String(Object.values(s.injections).reduce((a, b) => a + b, 0)),
        tokens(s.usage.total_tokens),
        Object.entries(s.stop_reasons)
          .map(([k, v]) => (v > 1 ? `${k}x${v}` : k))
          .join(','),
        s.wall_seconds.mean?.toFixed(2) ?? '-',
      ]);
    }
  }
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 2 || i === 13 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  const label = summary.scripted ? ' (scripted model: not a real model result)' : '';
  return `${[`suite ${summary.suite}, model ${summary.model}${label}`, line(head), ...body.map(line), '', ...rollupLines(summary), ...paired(summary)].join('\n')}\n`;
}

const paired = (summary: CeSummary): string[] => (summary.paired.length > 0 ? ['', ...summary.paired.map(pairedLine)] : []);

const ms = (d: Distribution) => (d.n === 0 ? '-' : `${Math.round(d.median!)}/${Math.round(d.p95!)}`);
const known = (f: { sum: number | null; unknown_calls: number }) => `${f.sum ?? 'unknown'} (${f.unknown_calls} unknown)`;

/** One line per cell across its repetitions: unknown counts beside every token figure. */
function rollupLines(summary: CeSummary): string[] {
  const head = ['cell', 'reps', 'jobs', 'success', 'failures', 'calls', 'failed', 'no usage', 'tokens median', 'tokens', 'cache read', 'latency ms p50/p95'];
  const body = Object.entries(summary.rollup).map(([cell, r]) => [
    cell,
    String(r.repetitions),
    String(r.jobs),
    `${r.success.successes}/${r.success.jobs}`,
    Object.entries(r.failures.by_type)
      .map(([k, v]) => `${k}x${v}`)
      .join(',') || '-',
    String(r.calls.total),
    String(r.calls.failed),
    `${r.unknown_usage.calls_without_usage}/${r.unknown_usage.calls}`,
    r.known_tokens.total_tokens.per_repetition.median === null ? 'unknown' : String(r.known_tokens.total_tokens.per_repetition.median),
    known(r.known_tokens.total_tokens),
    known(r.cache.read_tokens),
    ms(r.latency_ms),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === 4 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return ['per cell across repetitions:', line(head), ...body.map(line)];
}

/** A cell row's core: its arm is the cell, its verdict `success`, its time `wall_seconds`; the rest is the job's. */
export const ceCore: CoreOf<CeRow> = (r, job) => ({ ...job, arm: r.cell, case_id: r.case, status: r.status, passed: r.success, seconds: r.wall_seconds });

/** The summary's figures: each cell's by case (`cells`), and its roll-up over repetitions (`rollup`) beside them. */
export const CE_SUMMARY_LAYOUT: SummaryLayout = {
  groups: [
    { key: 'cells', depth: 2 },
    { key: 'rollup', suffix: 'all repetitions' },
  ],
};

/** The suite's report: rows, per cell × case summary, table. */
export const contextEngineeringReport: SuiteReport = defineReport({
  columns: ceColumns,
  compare: byCellCaseRepetition,
  armJob: ceArmJob,
  core: ceCore,
  summaryLayout: CE_SUMMARY_LAYOUT,
  summarize: summarizeCe,
  table: (summary) => ceTable(summary),
  files: ceRepetitionFiles,
});

import { defineReport, type ReportHeader, type SuiteReport } from '../../projections/index.js';
import { median } from '../../projections/summary.js';
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

/** summary.json of the suite: per cell, per case. */
export interface CeSummary {
  run_id: string;
  suite: string;
  model: string;
  scripted: boolean;
  jobs: number;
  cells: Record<string, Record<string, CeCellSummary>>;
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

/** Summarises rows per cell × case; a pure function of the rows. */
export function summarizeCe(rows: readonly CeRow[], header: ReportHeader): CeSummary {
  const cells: CeSummary['cells'] = {};
  for (const cell of [...new Set(rows.map((r) => r.cell))].sort(cmp)) {
    cells[cell] = {};
    for (const c of [...new Set(rows.filter((r) => r.cell === cell).map((r) => r.case))].sort(cmp))
      cells[cell][c] = cellCase(rows.filter((r) => r.cell === cell && r.case === c));
  }
  return { run_id: header.runId, suite: header.suite, model: header.model, scripted: header.scripted, jobs: rows.length, cells };
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
  return `${[`suite ${summary.suite}, model ${summary.model}${label}`, line(head), ...body.map(line)].join('\n')}\n`;
}

/** The suite's report: rows, per cell × case summary, table. */
export const contextEngineeringReport: SuiteReport = defineReport({
  columns: ceColumns,
  compare: byCellCaseRepetition,
  summarize: summarizeCe,
  table: (summary) => ceTable(summary),
});

// The viewer's comparison of runs (or arms of runs): `evalog compare` as a page. The figures are
// compareRuns over the rows the viewer derives (the same projection code and blob store as the
// CLI) with the CLI's bootstrap settings, so the page shows what `evalog compare --json` prints;
// beside them, a per-case grid that links each side's job to its transcript.
import { suiteNamed } from '../app/index.js';
import type { RowCore } from '../projections/index.js';
import { checkProtocols, compareRuns, CompareInputError, ProtocolMismatchError, type CompareRun, type Comparison } from '../projections/compare/index.js';
import { cmp } from '../projections/usage/index.js';
import { PUBLISHED_BOOTSTRAP } from '../stats/index.js';
import type { RunCatalog } from './catalog.js';
import { HttpError } from './errors.js';
import { coresOf } from './rows.js';

/** What the page asked for: the runs in order, optionally one arm of each, force, the seed. */
export interface CompareRunsQuery {
  runs: string[];
  arm?: string;
  force: boolean;
  /** Default: the CLI's (PUBLISHED_BOOTSTRAP.seed). */
  seed?: number;
}

/** A side's job of one (case, repetition): how it ended, and the job to open. */
export interface GridCell {
  job_id: string | null;
  /** As the comparison reads it: graded pass or fail, a failed job (error), ungraded or unfinished; a side without the case has no cell. */
  outcome: 'pass' | 'fail' | 'error' | 'ungraded' | 'unfinished';
}

/** One (case, repetition) across the sides. */
export interface GridRow {
  case_id: string;
  repetition: number;
  /** By side name; absent = missing on that side. */
  cells: Record<string, GridCell>;
  /** The comparisons (by index) in which this pair flipped, and the side that alone passed. */
  flips: { comparison: number; passed: string }[];
}

/** The comparison page's data. */
export interface CompareRunsView {
  comparison: Comparison;
  grid: GridRow[];
}

/** Body of a refusal the page can offer to force: every difference, one line each. */
export interface RefusalBody extends Record<string, unknown> {
  differences: string[];
}

/** Compares the runs as `evalog compare` does; refusals are HTTP errors whose message the page shows. */
export async function compareRunsPage(catalog: RunCatalog, query: CompareRunsQuery): Promise<CompareRunsView> {
  if (query.runs.length < 2) throw new HttpError(400, 'evalog compare: name two or more runs');
  const runs: CompareRun[] = [];
  const cored: CoredRun[] = [];
  for (const runId of query.runs) {
    const run = await catalog.get(runId);
    if (!run) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
    const d = await run.derived();
    if (!d.ok) throw new HttpError(409, `run ${runId}: ${d.error}`);
    const cores = coresOf(d.outputs);
    if (cores instanceof Error) throw new HttpError(409, `run ${runId}: ${cores.message}`);
    // Paired as `evalog compare` pairs them: through the suite's report where its rows have their own shape.
    const armJob = suiteNamed(d.outputs.run.suite)?.report?.armJob;
    runs.push({ runId, rows: d.outputs.rows, run: d.outputs.run, ...(armJob ? { armJob } : {}) });
    cored.push({ runId, cores });
  }
  let comparison: Comparison;
  try {
    comparison = compareRuns(runs, { arm: query.arm, force: query.force, bootstrap: { ...PUBLISHED_BOOTSTRAP, seed: query.seed ?? PUBLISHED_BOOTSTRAP.seed } });
  } catch (err) {
    // Every difference, not only the first the message names: the page lists what forcing lets through.
    if (err instanceof ProtocolMismatchError) throw new HttpError(409, err.message, { differences: checkProtocols(runs, true) } satisfies RefusalBody);
    if (err instanceof CompareInputError) throw new HttpError(400, err.message);
    throw err;
  }
  return { comparison, grid: gridOf(cored, comparison) };
}

/** A run's rows as the grid reads them: their cores (through the run's suite). */
export interface CoredRun {
  runId: string;
  cores: readonly RowCore[];
}

// A row's outcome by the rule the comparison pairs by (sides.ts): only a succeeded job's verdict is graded.
function outcomeOf(core: RowCore): GridCell['outcome'] {
  if (core.status === 'succeeded') return core.passed === null ? 'ungraded' : core.passed ? 'pass' : 'fail';
  return core.status === 'failed' ? 'error' : 'unfinished';
}

/** Rows sorted by case id (code units), then repetition, as the comparison sorts its flips. */
export function gridOf(runs: readonly CoredRun[], comparison: Comparison): GridRow[] {
  const coresOfRun = new Map(runs.map((r) => [r.runId, r.cores]));
  const byKey = new Map<string, GridRow>();
  const key = (caseId: string, repetition: number) => `${caseId}\u0000${repetition}`;
  for (const side of comparison.sides) {
    for (const core of coresOfRun.get(side.run_id) ?? []) {
      if (core.arm !== side.arm) continue;
      const k = key(core.case_id, core.repetition);
      const g = byKey.get(k) ?? { case_id: core.case_id, repetition: core.repetition, cells: {}, flips: [] };
      g.cells[side.name] = { job_id: core.job_id, outcome: outcomeOf(core) };
      byKey.set(k, g);
    }
  }
  for (const [i, c] of comparison.comparisons.entries()) {
    for (const f of c.flipped.a_only) byKey.get(key(f.case_id, f.repetition))?.flips.push({ comparison: i, passed: c.a });
    for (const f of c.flipped.b_only) byKey.get(key(f.case_id, f.repetition))?.flips.push({ comparison: i, passed: c.b });
  }
  return [...byKey.values()].sort((x, y) => cmp(x.case_id, y.case_id) || x.repetition - y.repetition);
}

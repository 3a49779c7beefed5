// The run page's data with its table done on the server (see run-table.ts for why), the downloads
// of exactly the rows the table shows, and a job's previous and next in the table's order.
import { jsonLines, rowsCsv } from '../projections/index.js';
import type { RunOutputs } from '../projections/outputs.js';
import { runView, type LogStatuses, type RunView } from './api.js';
import type { RunCatalog } from './catalog.js';
import { distributionOf, type ArmDistribution } from './distribution.js';
import { HttpError } from './errors.js';
import { coresOf, tableRow } from './rows.js';
import { matching, neighbours, runIndex, tablePage, type JobNeighbours, type RunIndex, type TablePage, type TableQuery } from './run-table.js';

/** The run page: the run view without its rows, one page of the table and the score distribution. */
export type RunPageView = Omit<RunView, 'rows'> & { table: TablePage; distribution: ArmDistribution[] };

interface Indexed {
  index: RunIndex;
  distribution: ArmDistribution[];
}

// One index per derivation: a run's outputs object is the same until events arrive, so live
// refreshes, page turns and downloads of a finished run index it once.
const indexes = new WeakMap<RunOutputs, Indexed>();

async function indexed(catalog: RunCatalog, runId: string): Promise<Indexed | null> {
  const run = await catalog.get(runId);
  if (!run) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
  const d = await run.derived();
  if (!d.ok) return null;
  let got = indexes.get(d.outputs);
  if (!got) {
    // Rows and derived outputs belong to the same prefix of events, so they agree with each other.
    const events = run.events.slice(0, d.events);
    const cores = coresOf(d.outputs);
    // A run whose rows give no core has its error on the run view; its table is empty.
    if (cores instanceof Error) return null;
    const views = d.outputs.rows.map((r, i) => tableRow(r, cores[i]!));
    // The run view's arms: those planned and those of rows.
    const arms = [...new Set([...run.digest().arms, ...views.map((v) => v.arm)])].sort();
    got = { index: runIndex(d.outputs.rows, views, events), distribution: distributionOf(arms, views) };
    indexes.set(d.outputs, got);
  }
  return got;
}

const EMPTY: RunIndex = { rows: [], byJob: new Map() };

/** The run page's data for a query. */
export async function runPageView(catalog: RunCatalog, runId: string, q: TableQuery, statuses?: LogStatuses): Promise<RunPageView> {
  const { rows: _rows, ...view } = await runView(catalog, runId, statuses);
  const got = await indexed(catalog, runId);
  return { ...view, table: tablePage(got?.index ?? EMPTY, q), distribution: got?.distribution ?? [] };
}

/** A download of the rows the query lets through, in its order: the suite's rows unchanged, as JSON Lines or CSV (as `evalog export --rows`). */
export async function rowsDownload(catalog: RunCatalog, runId: string, q: TableQuery, format: 'csv' | 'jsonl'): Promise<string> {
  const got = await indexed(catalog, runId);
  if (!got) throw new HttpError(409, 'the run has no rows: its outputs cannot be derived yet');
  const rows = matching(got.index, q).map((r) => r.row);
  return format === 'csv' ? rowsCsv(rows) : jsonLines(rows);
}

/** The jobs before and after one job in the query's order, with its row. */
export async function jobNeighbours(catalog: RunCatalog, runId: string, jobId: string, q: TableQuery): Promise<JobNeighbours> {
  const got = await indexed(catalog, runId);
  return neighbours(got?.index ?? EMPTY, q, jobId);
}

/**
 * `fn` shared by the callers of the next `ms` milliseconds: asking the log for run statuses reads
 * every run it holds, and a running run's page refreshes several times a second.
 */
export function shared<T>(fn: () => Promise<T>, ms: number): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | null = null;
  return () => {
    const now = Date.now();
    if (last === null || now - last.at > ms) {
      const entry = { at: now, value: fn() };
      last = entry;
      // A failed look is not kept: the next caller asks again.
      entry.value.catch(() => {
        if (last === entry) last = null;
      });
    }
    return last.value;
  };
}

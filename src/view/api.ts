import type { UsageReport, UsageTotals } from '../projections/usage/index.js';
import type { RunCatalog } from './catalog.js';
import { compareArms, type CompareView } from './compare.js';
import type { RunDigest } from './digest.js';
import { BlobDamagedError, BlobNotFoundError, LogCorruptedError } from '../log/index.js';
import { HttpError } from './errors.js';
import type { LiveRun } from './live-run.js';
import { coresOf, viewRow, type ViewRow } from './rows.js';
import { chartOf, type ArmChart } from './spread.js';
import { summaryView, type SummaryView } from './summary-table.js';
import { jobView, type JobView } from './timeline.js';

/** Usage of a set of calls, as the run page shows it (known sums beside unknown counts). */
export interface UsageLine {
  calls: number;
  outcomes: UsageTotals['outcomes'];
  callsWithoutUsage: number;
  input: UsageTotals['usage']['fields']['inputTokens'];
  output: UsageTotals['usage']['fields']['outputTokens'];
  total: UsageTotals['usage']['fields']['totalTokens'];
}

/** One line of the runs list. */
export interface RunListItem extends RunDigest {
  error: string | null;
  usage: UsageLine | null;
  /** Graded jobs and those that passed, over the rows derived now; null before any row. */
  passRate: PassRate | null;
}

/** Jobs that passed of the jobs graded (pass or fail); `rate` is null when none is graded yet. */
export interface PassRate {
  passed: number;
  graded: number;
  rate: number | null;
}

/** Statuses as the log reports them: only the log knows a run's writer is gone (interrupted). */
export type LogStatuses = () => Promise<ReadonlyMap<string, RunDigest['status']>>;

/** The run page. */
export interface RunView {
  digest: RunDigest & { error: string | null };
  /** Only what identifies the set-up; run.json has the rest. No endpoint values exist to show. */
  header: {
    suite: string;
    model: string;
    scripted: boolean;
    note: string | null;
    config_hash: string;
    seed: number;
    concurrency: number;
    started_at: string;
    completed_at: string | null;
  } | null;
  /** summary.json as the projections derive it, unchanged. */
  summary: unknown;
  summaryView: SummaryView | null;
  arms: string[];
  rows: ViewRow[];
  chart: ArmChart[];
  usage: { all: UsageLine; failed: UsageLine; byAttribution: Record<string, UsageLine> } | null;
  error: string | null;
}

const line = (t: UsageTotals): UsageLine => ({
  calls: t.calls,
  outcomes: t.outcomes,
  callsWithoutUsage: t.usage.callsWithoutUsage,
  input: t.usage.fields.inputTokens,
  output: t.usage.fields.outputTokens,
  total: t.usage.fields.totalTokens,
});

function usageOf(r: UsageReport): RunView['usage'] {
  return { all: line(r), failed: line(r.failed), byAttribution: Object.fromEntries(Object.entries(r.byAttribution).map(([k, v]) => [k, line(v)])) };
}

/** Pass rate over view rows: a job counts once it is graded. */
export function passRateOf(rows: readonly ViewRow[]): PassRate | null {
  if (rows.length === 0) return null;
  const passed = rows.filter((r) => r.outcome === 'pass').length;
  const graded = passed + rows.filter((r) => r.outcome === 'fail').length;
  return { passed, graded, rate: graded === 0 ? null : passed / graded };
}

/**
 * The runs list, each with its usage totals from the usage projection and its pass rate. A run
 * whose log has no RunCompleted reads as running from its events; the log says when its writer
 * is gone, and then the list says interrupted.
 */
export async function runsList(catalog: RunCatalog, statuses?: LogStatuses): Promise<RunListItem[]> {
  const [items, logged] = await Promise.all([catalog.listEach(listItem), statuses?.().catch(() => null) ?? null]);
  return items.map((item) => (item.status === 'running' && logged?.get(item.runId) === 'interrupted' ? { ...item, status: 'interrupted' } : item));
}

// Module-level: the catalog keeps the entries of completed runs per entry function.
async function listItem(run: LiveRun): Promise<RunListItem> {
  const d = await run.derived();
  const cores = d.ok ? coresOf(d.outputs) : null;
  const rows = cores && !(cores instanceof Error) ? cores.map(viewRow) : [];
  return { ...run.digest(), usage: d.ok ? line(d.outputs.usage.report) : null, passRate: passRateOf(rows) };
}

async function mustGet(catalog: RunCatalog, runId: string): Promise<LiveRun> {
  const run = await catalog.get(runId);
  if (!run) throw new HttpError(404, `no run ${JSON.stringify(runId)}`);
  return run;
}

/**
 * A running run's digest as the log sees it: a run killed without RunCompleted reads as running
 * from its events, and only the log knows its writer is gone (as the runs list asks it).
 */
async function statusOf<D extends RunDigest>(digest: D, statuses?: LogStatuses): Promise<D> {
  if (digest.status !== 'running' || !statuses) return digest;
  const logged = await statuses().catch(() => null);
  return logged?.get(digest.runId) === 'interrupted' ? { ...digest, status: 'interrupted' } : digest;
}

/** The run page's data; with `statuses`, a run whose writer is gone says interrupted. */
export async function runView(catalog: RunCatalog, runId: string, statuses?: LogStatuses): Promise<RunView> {
  const run = await mustGet(catalog, runId);
  const d = await run.derived();
  const digest = await statusOf(run.digest(), statuses);
  const cores = d.ok ? coresOf(d.outputs) : null;
  const rows = cores && !(cores instanceof Error) ? cores.map(viewRow) : [];
  const arms = [...new Set([...digest.arms, ...rows.map((r) => r.arm)])].sort();
  if (!d.ok) return { digest, header: null, summary: null, summaryView: null, arms, rows, chart: [], usage: null, error: d.error };
  const f = d.outputs.run;
  return {
    digest,
    header: {
      suite: f.suite,
      model: f.model.name,
      scripted: f.model.scripted,
      note: f.note,
      config_hash: f.config_hash,
      seed: f.seed,
      concurrency: f.concurrency,
      started_at: f.started_at,
      completed_at: f.completed_at,
    },
    summary: d.outputs.summary,
    summaryView: summaryView(d.outputs.summary, d.outputs.summaryLayout),
    arms,
    rows,
    chart: chartOf(arms, rows),
    usage: usageOf(d.outputs.usage.report),
    error: cores instanceof Error ? cores.message : null,
  };
}

/** summary.json of the run, as derived now. */
export async function runSummary(catalog: RunCatalog, runId: string): Promise<unknown> {
  const d = await (await mustGet(catalog, runId)).derived();
  if (!d.ok) throw new HttpError(409, d.error);
  return d.outputs.summary;
}

/** The job page's data. */
export async function jobPage(catalog: RunCatalog, runId: string, jobId: string): Promise<JobView> {
  const run = await mustGet(catalog, runId);
  const events = run.events.filter((e) => e.jobId === jobId);
  if (events.length === 0) throw new HttpError(404, `run ${runId} has no job ${JSON.stringify(jobId)}`);
  return jobView(runId, jobId, events);
}

/** The paired comparison of two arms (default: the first two). */
export async function comparePage(catalog: RunCatalog, runId: string, a: string | null, b: string | null): Promise<CompareView> {
  const view = await runView(catalog, runId);
  const armA = a ?? view.arms[0];
  const armB = b ?? view.arms.find((x) => x !== armA);
  if (armA === undefined || armB === undefined) throw new HttpError(409, `run ${runId} has fewer than two arms to compare`);
  for (const arm of [armA, armB]) if (!view.arms.includes(arm)) throw new HttpError(404, `run ${runId} has no arm ${JSON.stringify(arm)}`);
  return compareArms(view.rows, view.arms, armA, armB, view.summaryView?.paired ?? []);
}

/** A message blob that one of the run's requests refers to, parsed when it is JSON. */
export async function messageBlob(catalog: RunCatalog, runId: string, hash: string, read: (hash: string) => Promise<Uint8Array>): Promise<unknown> {
  const run = await mustGet(catalog, runId);
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new HttpError(404, 'not a blob hash');
  // Only blobs the run's own requests name are served: the store is not browsable by guessing.
  const named = run.events.find((e) => e.type === 'ProviderCallRequested' && e.data.messages.includes(hash));
  if (!named) throw new HttpError(404, `run ${runId} has no message ${hash}`);
  let bytes: Uint8Array;
  try {
    bytes = await read(hash);
  } catch (err) {
    // The page shows this in place of the message: the log is damaged, not the viewer.
    if (err instanceof BlobNotFoundError || err instanceof LogCorruptedError)
      throw new HttpError(
        409,
        new BlobDamagedError(hash, named.id, named.seq, err instanceof BlobNotFoundError ? 'missing' : 'altered', { cause: err }).message,
      );
    throw err;
  }
  const text = Buffer.from(bytes).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { text };
  }
}

import type { StoredEvent } from '../events/index.js';
import type { RowAnswerFields } from './answers.js';
import type { ArmJob } from './compare/index.js';
import { evolveRows, heldJobs, initialRows, publishRows, publishWithJobs, takeRow, type JobColumns, type PublishedRow, type RowsState } from './columns.js';
import type { Projection } from './fold/projection.js';
import { checkedCore, jobCores, namedCore, type CoreOf, type RowCore } from './row-core.js';
import type { SummaryLayout } from './summary-layout.js';
import type { SuiteOutputs } from './suite-outputs.js';
import { foldRows, type ReportHeader, type SummaryFold } from './row-fold.js';

export type { ReportHeader } from './row-fold.js';
import { sortedRows, usageProjection, type CallRow, type UsageState } from './usage/index.js';

/** A report with its types: the suite's columns of each job's row, the order of the rows, the summary and its table. */
export type ReportSpec<S, R extends Record<string, unknown>, Sum> = ReportSpecBase<S, R, Sum> & SummaryOf<R, Sum>;

/**
 * How a report's summary comes from its rows: a fold over them in published order (`summary`,
 * made with `rowFold`: rows are never all held, so a run's summary costs what the fold keeps), or
 * `summarize` over every row at once (the form a suite without a fold still gives; the rows, and
 * the calls, are then all held when it runs). One or the other, never both.
 */
export type SummaryOf<R, Sum> =
  | { summary: SummaryFold<R, Sum>; summarize?: never }
  | {
      /** The summary; `calls` are the run's attempts as usage.json lists them, for a summary of each call (latency, cache). */
      summarize(rows: readonly R[], header: ReportHeader, calls: readonly CallRow[]): Sum;
      summary?: never;
    };

/** The parts of a report beside its summary. */
export interface ReportSpecBase<S, R extends Record<string, unknown>, Sum> {
  columns: JobColumns<S, R>;
  /** Order of the published rows; absent = by job id. */
  compare?(a: R, b: R): number;
  table(summary: Sum, header: ReportHeader): string;
  /** Further JSON files the suite publishes beside the four, by file name (e.g. a usage report per repetition); absent = none. */
  files?(rows: readonly R[], header: ReportHeader, calls: readonly CallRow[]): Record<string, unknown>;
  /**
   * How one of these rows pairs in a comparison of arms (`evalog compare`; the summary's `paired`
   * uses the same): for rows without the generic `case_id`/`status`/`passed`; absent = the generic reading.
   */
  armJob?(row: R): ArmJob;
  /**
   * The row's canonical core (see row-core.ts), for rows whose spec names its fields otherwise;
   * `job` is what the engine knows of the row's job. Absent = the row carries the core's names (`namedCore`).
   */
  core?: CoreOf<R>;
  /** Where the summary keeps its figures by arm, for a generic reader (the viewer); absent = the generic summary's (`arms`). */
  summaryLayout?: SummaryLayout;
}

/** One run's report being derived: fed the run's events in log order, then finished. */
export interface ReportRun {
  evolve(e: StoredEvent): void;
  /**
   * The rows, summary and table, given the usage projection's attempts (the base rows' calls); with
   * `answers` (by job id), each published row also gets its job's answer fields.
   */
  finish(calls: readonly CallRow[], header: ReportHeader, answers?: ReadonlyMap<string, RowAnswerFields>): ReportOutput;
  /** The same report one job at a time, for outputs that never hold every row (`defineReport` gives it; absent = only `finish`). */
  readonly stream?: ReportStream;
}

/**
 * A report's rows taken out job by job as they end, and its summary folded from them in published
 * order: how rows.jsonl and summary.json are written without every row in memory (stream/outputs.ts).
 */
export interface ReportStream {
  /** The job's published row as the fold has it now, without answer fields (see `takeRow`); its state is then forgotten. */
  take(jobId: string, calls: readonly CallRow[]): Record<string, unknown> | null;
  /** The jobs whose state is still held (not ended), in job-id order. */
  held(): string[];
  /** The suite's order of two published rows (ties go by job id); absent = job id alone. */
  readonly compare?: (a: Record<string, unknown>, b: Record<string, unknown>) => number;
  /** True when the summary or files take every call at once (a `summarize` or `files` hook): they are then read back for `finish`. */
  readonly needsCalls: boolean;
  /** The summary being folded: rows added in published order, then finished (with every call when `needsCalls`). */
  summary(header: ReportHeader): StreamSummary;
}

/** A streamed report's summary as it folds. */
export interface StreamSummary {
  add(row: Record<string, unknown>): void;
  finish(calls: readonly CallRow[]): Omit<ReportOutput, 'rows' | 'cores'>;
}

/** A finished report, its row and summary types no longer needed by the files that publish it. */
export interface ReportOutput {
  rows: Record<string, unknown>[];
  summary: unknown;
  /** The suite's further files, sorted by name (see `ReportSpec.files`). */
  files: ReportFile[];
  table(): string;
  /**
   * Each row's canonical core, index for index with `rows`; computed when first asked for (only
   * generic readers need it). Throws RowCoreError for a row that does not give it. Absent in a
   * report that keeps no job facts (one made by hand, not by `defineReport`).
   */
  cores?(): RowCore[];
}

/** One further file of a suite's report: a name in the run folder and its JSON value. */
export interface ReportFile {
  name: string;
  value: unknown;
}

/** A suite's report named a further file that is not a plain `*.json` name beside the four outputs (a programming error). */
export class ReportFileNameError extends Error {
  override name = 'ReportFileNameError';
  constructor(file: string) {
    super(`a report file is named ${JSON.stringify(file)}: give a plain *.json name other than summary.json, usage.json and run.json`);
  }
}

const RESERVED = new Set(['summary.json', 'usage.json', 'run.json']);

/**
 * A suite's rows, summary and table, with the suite's own types closed over (`defineReport`), so
 * the outputs run any suite's report without a cast; each `start` folds one run afresh.
 */
export interface SuiteReport {
  start(): ReportRun;
  /** The report's `armJob`, for rows as rows.jsonl holds them (the report's own row type). */
  armJob?(row: Record<string, unknown>): ArmJob;
  /** The report's summary layout (see `ReportSpec.summaryLayout`); absent = the generic one. */
  readonly summaryLayout?: SummaryLayout;
}

/** Closes a typed report into a `SuiteReport`. */
export function defineReport<S, R extends Record<string, unknown>, Sum>(spec: ReportSpec<S, R, Sum>): SuiteReport {
  const armJob = spec.armJob;
  const compare = spec.compare;
  return {
    // Rows read back (rows.jsonl, derived rows) are the report's own rows: R is what they hold.
    ...(armJob ? { armJob: (row: Record<string, unknown>) => armJob(row as R) } : {}),
    ...(spec.summaryLayout ? { summaryLayout: spec.summaryLayout } : {}),
    start() {
      let state: RowsState<S> = initialRows();
      return {
        evolve(e) {
          state = evolveRows(spec.columns, state, e);
        },
        finish(calls, header, answers) {
          const published = publishWithJobs(spec.columns, state, calls, spec.compare, answers);
          state = initialRows(); // the fold's state is not kept alive by the output
          return output(spec, published, header, calls);
        },
        stream: {
          take: (jobId, calls) => takeRow(spec.columns, state, jobId, calls),
          held: () => heldJobs(state),
          // Rows read back from the spill are the report's own rows: R is what they hold.
          ...(compare ? { compare: (a: Record<string, unknown>, b: Record<string, unknown>) => compare(a as R, b as R) } : {}),
          needsCalls: spec.summarize !== undefined || spec.files !== undefined,
          summary: (header) => streamSummary(spec, header),
        },
      };
    },
  };
}

/** The summary of rows fed one at a time: the fold's, or (a `summarize` or `files` hook) over the rows collected for it. */
function streamSummary<R extends Record<string, unknown>, Sum>(spec: ReportSpec<unknown, R, Sum>, header: ReportHeader): StreamSummary {
  const fold = spec.summary?.start(header);
  // Only the hooks that take every row at once make the rows be kept.
  const rows: R[] | null = fold === undefined || spec.files !== undefined ? [] : null;
  return {
    // Rows read back are the report's own rows.
    add(row) {
      fold?.add(row as R);
      rows?.push(row as R);
    },
    finish(calls) {
      const summary = fold ? fold.finish() : spec.summarize!(rows ?? [], header, calls);
      return parts(spec, summary, rows ?? [], header, calls);
    },
  };
}

/** The finished report; made here, apart from the fold, so that its `table` closure holds only the summary. */
function output<R extends Record<string, unknown>, Sum>(
  spec: ReportSpec<unknown, R, Sum>,
  published: PublishedRow<R>[],
  header: ReportHeader,
  calls: readonly CallRow[],
): ReportOutput {
  const rows = published.map((p) => p.row);
  const summary = spec.summary ? foldRows(spec.summary, rows, header) : spec.summarize!(rows, header, calls);
  return { rows, ...parts(spec, summary, rows, header, calls), cores: coresOf(published, calls, spec.core) };
}

/** The summary's table and the report's further files (checked names, sorted). */
function parts<R extends Record<string, unknown>, Sum>(
  spec: Pick<ReportSpec<unknown, R, Sum>, 'table' | 'files'>,
  summary: Sum,
  rows: readonly R[],
  header: ReportHeader,
  calls: readonly CallRow[],
): Omit<ReportOutput, 'rows' | 'cores'> {
  const named = Object.entries(spec.files?.(rows, header, calls) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name] of named) if (!/^[A-Za-z0-9][A-Za-z0-9._-]*\.json$/.test(name) || RESERVED.has(name)) throw new ReportFileNameError(name);
  const files = named.map(([name, value]) => ({ name, value }));
  return { summary, files, table: () => spec.table(summary, header) };
}

/** The rows' cores, computed once when first asked for, through the suite's `core` (checked) or by the core's names. */
function coresOf<R extends Record<string, unknown>>(published: PublishedRow<R>[], calls: readonly CallRow[], core: CoreOf<R> | undefined): () => RowCore[] {
  let cores: RowCore[] | undefined;
  return () => {
    if (cores === undefined) {
      const jobs = jobCores(
        published.map((p) => p.job),
        calls,
      );
      cores = published.map(({ row }, i) => (core ? checkedCore(core(row, jobs[i]!), jobs[i]!) : namedCore(row, jobs[i]!)));
    }
    return cores;
  };
}

/** A report's published rows as a projection of its own (with the usage it needs folded in), for tests and tools. */
export function reportRows<S, R extends Record<string, unknown>>(
  spec: Pick<ReportSpec<S, R, unknown>, 'columns' | 'compare'>,
): Projection<{ rows: RowsState<S>; usage: UsageState }, R[]> {
  return {
    name: 'rows',
    initialState: () => ({ rows: initialRows(), usage: usageProjection.initialState() }),
    canHandle: () => true,
    evolve(s, e) {
      s.rows = evolveRows(spec.columns, s.rows, e);
      if (usageProjection.canHandle(e)) s.usage = usageProjection.evolve(s.usage, e);
      return s;
    },
    result: (s) => publishRows(spec.columns, s.rows, sortedRows(s.usage), spec.compare),
  };
}

/** What the outputs take from a run's suite; a suite has this shape, so the app passes its suites as they are. */
export interface OutputHooks {
  /** The suite's own rows and summary; absent = the generic ones. */
  report?: SuiteReport;
  /** The suite's own published files in place of rows/summary/usage/run.json; absent = those four. */
  outputs?: SuiteOutputs;
  /** File extension of a case's artifact in the output folder (default `txt`), given the run's recorded config. */
  artifactExtension?(caseId: string, config: Readonly<Record<string, unknown>>): string;
  /** `'hashes'`: rows get no case text (input, output, expected), only the hashes, verdict and reason (data that may not be published). */
  rowText?: 'hashes';
}

/**
 * The hooks of the suite a run names (undefined = an unknown suite: the generic report). Passed
 * in from above, so projections never import the suites or their registry.
 */
export type OutputHooksOf = (suite: string) => OutputHooks | undefined;

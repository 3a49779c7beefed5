import { join } from 'node:path';
import type { StoredEvent } from '../events/index.js';
import type { BlobStore, EventLog } from '../log/index.js';
import { answerFieldsOf, answersFold, finishAnswers, type JobAnswer } from './answers.js';
import { artifactsProjection, type ArtifactFile, type ArtifactsState } from './artifacts.js';
import type { Projection } from './fold/projection.js';
import { provenanceProjection, type RunFile } from './fold/provenance.js';
import { defineReport, type OutputHooksOf, type ReportFile, type ReportRun, type SuiteReport } from './report.js';
import type { SuiteFilesOutput, SuiteFilesRun } from './suite-outputs.js';
import { genericColumns } from './rows.js';
import { NoRowCoresError, type RowCore } from './row-core.js';
import { GENERIC_SUMMARY_LAYOUT, type SummaryLayout } from './summary-layout.js';
import { genericSummaryFold } from './summary.js';
import { summaryTable } from './table.js';
import { partialNote, runOutcomeProjection, type RunOutcome } from './run-outcome.js';
import { usageProjection, type UsageFile } from './usage/index.js';
import { jsonDocumentChunks, jsonLineChunks, writeAtomic, writeAtomicAll } from './writer.js';

/** Everything a run folder publishes, derived from the log alone. */
export interface RunOutputs {
  /** One row per job, sorted; the suite's own shape when it has a report, else `Row`. */
  rows: Record<string, unknown>[];
  summary: unknown;
  usage: UsageFile;
  run: RunFile;
  /** The suite's further JSON files beside the four (e.g. a usage report per repetition), sorted by name. */
  files: ReportFile[];
  /** Artifact revisions as files (local only: the folder's .gitignore keeps them out of git). */
  artifacts: ArtifactFile[];
  /** Every started job's input, output, expected value and verdict (also in its row), by job id: what `evalog show` prints. */
  answers: JobAnswer[];
  /** How the run ended, job by job (what the exit code is decided from), from the same pass. */
  outcome: RunOutcome;
  /** The suite's own published files, written in place of the four (and the artifacts); null = the four. Derived on first read. */
  readonly own: SuiteFilesOutput | null;
  /** Renders the summary as the table the CLI prints (the suite's own files' table when it has them). */
  table(): string;
  /**
   * Each row's canonical core (row-core.ts), index for index with `rows`, through the suite's report:
   * what a generic reader (the viewer, a comparison) reads of a row. Computed on first call; throws
   * RowCoreError when a row does not give it.
   */
  cores(): RowCore[];
  /** Where the summary keeps its figures by arm, as the suite's report says (default: the generic summary's). */
  summaryLayout: SummaryLayout;
}

/** The generic report, for suites without their own. */
export const genericReport: SuiteReport = defineReport({ columns: genericColumns, summary: genericSummaryFold, table: (summary) => summaryTable(summary) });

/** The run has no `RunStarted` (first): nothing can be derived. */
export class RunNotFoundError extends Error {
  override name = 'RunNotFoundError';
  constructor(readonly runId: string) {
    super(`run ${runId} has no RunStarted event in the log`);
  }
}

/**
 * Folds a run's events through every projection in one pass; the suite (from RunStarted, looked up
 * by `hooksOf`) picks the rows. `blobs` (the run's blob store) gives the rows their input text: the
 * first request's messages are blobs; without it every row's input is null.
 */
export async function deriveOutputs(
  runId: string,
  events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>,
  hooksOf: OutputHooksOf,
  // Required, even when undefined on purpose: a caller that forgets it gets rows without input (a bug seen once).
  blobs: Pick<BlobStore, 'get'> | undefined,
): Promise<RunOutputs> {
  let report: ReportRun | null = null;
  let summaryLayout = GENERIC_SUMMARY_LAYOUT;
  let own: SuiteFilesRun | null = null;
  let artifacts: Projection<ArtifactsState, ArtifactFile[]> | null = null;
  let artifactsState: ArtifactsState = new Map();
  let usageState = usageProjection.initialState();
  let runState = provenanceProjection.initialState();
  let answersState = answersFold.initialState();
  let outcomeState = runOutcomeProjection.initialState();
  let rowText: 'hashes' | undefined;
  for await (const e of events) {
    if (e.type === 'RunStarted' && report === null) {
      const suite = hooksOf(e.data.suite);
      report = (suite?.report ?? genericReport).start();
      summaryLayout = suite?.report?.summaryLayout ?? GENERIC_SUMMARY_LAYOUT;
      const config = e.data.config;
      own = suite?.outputs?.start() ?? null;
      rowText = suite?.rowText;
      artifacts = artifactsProjection((c) => suite?.artifactExtension?.(c, config) ?? 'txt');
      artifactsState = artifacts.initialState();
    }
    if (report === null || artifacts === null) throw new RunNotFoundError(runId);
    report.evolve(e);
    own?.evolve(e);
    if (artifacts.canHandle(e)) artifactsState = artifacts.evolve(artifactsState, e);
    if (usageProjection.canHandle(e)) usageState = usageProjection.evolve(usageState, e);
    if (provenanceProjection.canHandle(e)) runState = provenanceProjection.evolve(runState, e);
    answersState = answersFold.evolve(answersState, e);
    if (runOutcomeProjection.canHandle(e)) outcomeState = runOutcomeProjection.evolve(outcomeState, e);
  }
  const run = provenanceProjection.result(runState);
  if (!run || !report || !artifacts) throw new RunNotFoundError(runId);
  const usage = usageProjection.result(usageState);
  const header = { runId, suite: run.suite, model: run.model.name, scripted: run.model.scripted, config: run.config };
  const answers = await finishAnswers(answersState, blobs);
  answersState = answersFold.initialState(); // the fold's state is not kept alive by the outputs
  // The base rows' calls are usage.json's attempts, merged by job id: rows and usage count alike.
  const byJob = new Map(answers.map((a) => [a.job_id, answerFieldsOf(a, rowText)]));
  const finished = report.finish(usage.calls, header, byJob);
  const { rows, files } = finished;
  // A run with jobs not ended says so in its summary and table; a complete run's stay as they were.
  const outcome = runOutcomeProjection.result(outcomeState);
  const partial = partialNote(outcome);
  const summary = partial ? withPartial(finished.summary, partial.field) : finished.summary;
  const table = partial ? () => `${partial.line}\n${finished.table()}` : finished.table;
  // The suite's own files are finished when first asked for: a live view of an unfinished run
  // (which asks only for rows and usage) never meets a fold that needs every job's result.
  const ownRun: SuiteFilesRun | null = own;
  let ownFiles: SuiteFilesOutput | null | undefined;
  const finishOwn = (): SuiteFilesOutput | null => {
    if (ownFiles === undefined) ownFiles = ownRun?.finish() ?? null;
    return ownFiles;
  };
  return {
    rows,
    summary,
    usage,
    run,
    files,
    artifacts: artifacts.result(artifactsState),
    answers,
    outcome,
    get own() {
      return finishOwn();
    },
    table: () => finishOwn()?.table() ?? table(),
    cores: () => {
      if (!finished.cores) throw new NoRowCoresError(run.suite);
      return finished.cores();
    },
    summaryLayout,
  };
}

// The field goes beside the summary's own (a suite's summary is an object too); anything else is left as it is.
export function withPartial(summary: unknown, field: Record<string, number>): unknown {
  return typeof summary === 'object' && summary !== null && !Array.isArray(summary) ? { ...summary, partial: field } : summary;
}

/** Reads a run from the log (its events and the blobs of its inputs) and derives its outputs. */
export function rebuildOutputs(log: EventLog, runId: string, hooksOf: OutputHooksOf): Promise<RunOutputs> {
  return deriveOutputs(runId, log.read(runId), hooksOf, log.blobs(runId));
}

/** Names of the published files. */
export const OUTPUT_FILES = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json'] as const;

/** Names of the files `writeOutputs` writes for these outputs: the suite's own, else the four and the report's further ones. */
export function outputFileNames(o: Pick<RunOutputs, 'own' | 'files'>): string[] {
  return o.own ? o.own.files.map((f) => f.path) : [...OUTPUT_FILES, ...o.files.map((f) => f.name)];
}

/** Writes the four files and the suite's further ones (or only the suite's own) canonically and atomically; the byte content depends on the events only. */
export async function writeOutputs(dir: string, o: RunOutputs): Promise<void> {
  if (o.own) {
    for (const f of o.own.files) await writeAtomic(join(dir, f.path), f.content);
    return;
  }
  // Written piece by piece: the large ones (rows, usage with every call) never exist as one string.
  await writeAtomic(join(dir, 'rows.jsonl'), jsonLineChunks(o.rows));
  await writeAtomic(join(dir, 'summary.json'), jsonDocumentChunks(o.summary));
  await writeAtomic(join(dir, 'usage.json'), jsonDocumentChunks(o.usage));
  await writeAtomic(join(dir, 'run.json'), jsonDocumentChunks(o.run));
  for (const f of o.files) await writeAtomic(join(dir, f.name), jsonDocumentChunks(f.value));
  await writeAtomicAll(o.artifacts.map((f) => ({ path: join(dir, f.path), content: f.content })));
}

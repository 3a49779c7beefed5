// The run folder's files folded from the log in one pass without every row or call in memory: a
// job's row is made as the job ends (its state then forgotten) and spilled to sorted runs on disk
// with its calls; writing merges them back in published order, folding the summary and usage.json's
// totals from them one at a time. The bytes are `deriveOutputs`' (outputs.ts), which stays for the
// readers that want every row as an object (the viewer, compare, show). A log this cannot stream
// exactly (an event of a job after its end; a suite with its own files or a hand-made report) is
// derived by `deriveOutputs` instead, from a second read: the same bytes, at its memory.
import { join } from 'node:path';
import { canonicalJson } from '../../core/canonical.js';
import { merged } from '../../core/objects.js';
import type { StoredEvent } from '../../events/index.js';
import type { BlobStore } from '../../log/index.js';
import { answerFieldsOf, answersFold, takeAnswer } from '../answers.js';
import { artifactsProjection, type ArtifactFile, type ArtifactsState } from '../artifacts.js';
import { isRoutedTo } from '../fold/routing.js';
import type { Projection } from '../fold/projection.js';
import { provenanceProjection } from '../fold/provenance.js';
import { deriveOutputs, genericReport, RunNotFoundError, withPartial, writeOutputs, type RunOutputs } from '../outputs.js';
import type { OutputHooksOf, ReportFile, ReportStream } from '../report.js';
import { partialNote, runOutcomeProjection, type RunOutcome } from '../run-outcome.js';
import type { SuiteFilesOutput } from '../suite-outputs.js';
import { cmp, evolveCall, usageProjection, usageTotalsOf, type CallFoldState, type CallRow } from '../usage/index.js';
import { jsonDocumentChunks, LazyList, writeAtomic, writeAtomicAll } from '../writer.js';
import { SortedSpill } from './spill.js';

/** What the written files hold, for the command that prints them. */
export interface WrittenOutputs {
  summary: unknown;
  /** The report's further files beside the four (see `ReportSpec.files`). */
  files: ReportFile[];
  own: SuiteFilesOutput | null;
  rows: number;
  table(): string;
}

/** A run's outputs folded and ready to be written. */
export interface PublishedOutputs {
  /** The suite's own files in place of the four (derived on first read, as `RunOutputs.own`); null = the four. */
  readonly own: SuiteFilesOutput | null;
  /** How the run ended, job by job, from the same pass. */
  readonly outcome: RunOutcome;
  /** True when the rows were streamed (false: derived in memory by `deriveOutputs`). */
  readonly streamed: boolean;
  /** Sorted runs written to disk so far, of rows and of calls (0 when everything fitted one chunk). */
  spilled(): { rows: number; calls: number };
  /** Writes the files into `dir` (which exists), canonically and atomically, then removes the spill. Once. */
  write(dir: string): Promise<WrittenOutputs>;
  /** Removes the spill without writing (the command gave up). */
  dispose(): void;
}

/** How large a spill's chunks grow before they are written to disk; small ones in tests make every run spill. */
export interface StreamLimits {
  rows: number;
  rowChars: number;
  calls: number;
  /** Folder for the spill's temp folder (default: the OS's). */
  root?: string;
}

export const STREAM_LIMITS: StreamLimits = { rows: 2048, rowChars: 4_000_000, calls: 16_384 };

/** A published row on its way through the spill: its job, which of the job's rows it is, its line and its value read back. */
interface RowEntry {
  jobId: string;
  /** The job's rows are numbered as they are taken: a retried job's earlier row is superseded by its last. */
  take: number;
  text: string;
  row: Record<string, unknown>;
}

/** Answer blobs read at once while the log is folded. */
const READ_AT_ONCE = 32;

/** The internal signal that the log cannot be streamed exactly: derive it in memory instead. */
class NotStreamable extends Error {
  override name = 'NotStreamable';
}

/**
 * Folds a run's events (`events` is called again only when the log must be derived in memory) into
 * its outputs with bounded memory; `blobs` as for `deriveOutputs`.
 */
export async function streamOutputs(
  runId: string,
  events: () => AsyncIterable<StoredEvent> | Iterable<StoredEvent>,
  hooksOf: OutputHooksOf,
  blobs: Pick<BlobStore, 'get'> | undefined,
  limits: StreamLimits = STREAM_LIMITS,
): Promise<PublishedOutputs> {
  const fold = new StreamFold(runId, blobs, limits);
  try {
    for await (const e of events()) await fold.evolve(e, hooksOf);
    return await fold.finish();
  } catch (err) {
    fold.dispose();
    if (!(err instanceof NotStreamable)) throw err;
    return inMemory(await deriveOutputs(runId, events(), hooksOf, blobs));
  }
}

/** Outputs derived by `deriveOutputs`, as published outputs. */
function inMemory(o: RunOutputs): PublishedOutputs {
  return {
    get own() {
      return o.own;
    },
    outcome: o.outcome,
    streamed: false,
    spilled: () => ({ rows: 0, calls: 0 }),
    async write(dir) {
      await writeOutputs(dir, o);
      return { summary: o.summary, files: o.files, own: o.own, rows: o.rows.length, table: o.table };
    },
    dispose() {},
  };
}

/** One run's streaming fold. */
class StreamFold {
  #stream: ReportStream | null = null;
  #rowText: 'hashes' | undefined;
  #artifacts: Projection<ArtifactsState, ArtifactFile[]> | null = null;
  #artifactsState: ArtifactsState = new Map();
  #report: { evolve(e: StoredEvent): void } | null = null;
  #run = provenanceProjection.initialState();
  #answers = answersFold.initialState();
  #outcome = runOutcomeProjection.initialState();
  readonly #calls: CallFoldState = { runId: null, pending: new Map(), strings: new Map(), jobIds: new Map() };
  /** The attempts of each job not yet ended (and of `_run`), in the order requested. */
  readonly #jobCalls = new Map<string, CallRow[]>();
  /** Jobs whose row has been taken; an event of one after that (but a new start) cannot be streamed. */
  readonly #closed = new Set<string>();
  /** Jobs started again after their row was taken: the take that stands (-1: none yet). */
  readonly #retaken = new Map<string, number>();
  #takes = 0;
  readonly #reads = new Set<Promise<void>>();
  #failed: unknown = null;
  readonly #rows: SortedSpill<RowEntry>;
  readonly #callSpill: SortedSpill<CallRow>;

  constructor(
    private readonly runId: string,
    private readonly blobs: Pick<BlobStore, 'get'> | undefined,
    limits: StreamLimits,
  ) {
    const byRow = (a: RowEntry, b: RowEntry) => (this.#stream?.compare?.(a.row, b.row) ?? 0) || cmp(a.jobId, b.jobId) || a.take - b.take;
    this.#rows = new SortedSpill<RowEntry>({
      compare: byRow,
      line: (r) => `${r.take}\t${JSON.stringify(r.jobId)}\t${r.text}`,
      parse(line) {
        const a = line.indexOf('\t');
        const b = line.indexOf('\t', a + 1);
        const text = line.slice(b + 1);
        return { take: Number(line.slice(0, a)), jobId: JSON.parse(line.slice(a + 1, b)) as string, text, row: JSON.parse(text) as Record<string, unknown> };
      },
      maxItems: limits.rows,
      maxChars: limits.rowChars,
      weight: (r) => r.text.length,
      ...(limits.root === undefined ? {} : { root: limits.root }),
    });
    this.#callSpill = new SortedSpill<CallRow>({
      compare: (a, b) => cmp(a.job_id, b.job_id) || cmp(a.call_id, b.call_id),
      line: (c) => canonicalJson(c),
      parse: (line) => JSON.parse(line) as CallRow,
      maxItems: limits.calls,
      maxChars: Number.POSITIVE_INFINITY,
      weight: () => 0,
      ...(limits.root === undefined ? {} : { root: limits.root }),
    });
  }

  async evolve(e: StoredEvent, hooksOf: OutputHooksOf): Promise<void> {
    if (this.#failed !== null) throw this.#failed;
    if (e.type === 'RunStarted' && this.#report === null) {
      const suite = hooksOf(e.data.suite);
      const report = (suite?.report ?? genericReport).start();
      // A suite's own files, or a report made by hand, have no job-by-job form.
      if (suite?.outputs !== undefined || report.stream === undefined) throw new NotStreamable();
      this.#report = report;
      this.#stream = report.stream;
      this.#rowText = suite?.rowText;
      const config = e.data.config;
      this.#artifacts = artifactsProjection((c) => suite?.artifactExtension?.(c, config) ?? 'txt');
      this.#artifactsState = this.#artifacts.initialState();
    }
    if (this.#report === null || this.#artifacts === null) throw new RunNotFoundError(this.runId);
    const jobId = e.jobId;
    if (jobId !== undefined && this.#closed.has(jobId)) {
      if (e.type === 'JobStarted') {
        this.#closed.delete(jobId);
        this.#retaken.set(jobId, -1);
      } else if (isRoutedTo('rows', e) || isRoutedTo('columns', e) || isRoutedTo('usage', e) || answersFold.canHandle(e)) throw new NotStreamable();
    }
    this.#report.evolve(e);
    if (this.#artifacts.canHandle(e)) this.#artifactsState = this.#artifacts.evolve(this.#artifactsState, e);
    if (usageProjection.canHandle(e) && isRoutedTo('usage', e)) evolveCall(this.#calls, e, (row) => this.#callsOf(row.job_id).push(row));
    if (provenanceProjection.canHandle(e)) this.#run = provenanceProjection.evolve(this.#run, e);
    this.#answers = answersFold.evolve(this.#answers, e);
    if (runOutcomeProjection.canHandle(e)) this.#outcome = runOutcomeProjection.evolve(this.#outcome, e);
    if ((e.type === 'JobSucceeded' || e.type === 'JobFailed') && jobId !== undefined) await this.#close(jobId);
  }

  #callsOf(jobId: string): CallRow[] {
    let list = this.#jobCalls.get(jobId);
    if (list === undefined) {
      list = [];
      this.#jobCalls.set(jobId, list);
    }
    return list;
  }

  /** Takes the job's row and calls out of the folds: the calls to the calls' spill, the row (with its answer) to the rows'. */
  async #close(jobId: string): Promise<void> {
    const calls = (this.#jobCalls.get(jobId) ?? []).sort((a, b) => cmp(a.call_id, b.call_id));
    this.#jobCalls.delete(jobId);
    for (const c of calls) {
      this.#calls.pending.delete(`${jobId}/${c.call_id}`);
      this.#callSpill.add(c);
    }
    this.#calls.jobIds.delete(jobId);
    const row = this.#stream!.take(jobId, calls);
    const answer = takeAnswer(this.#answers, jobId, row === null ? undefined : this.blobs);
    this.#closed.add(jobId);
    const take = this.#takes++;
    if (this.#retaken.has(jobId)) this.#retaken.set(jobId, take);
    if (row === null) return;
    const add = (fields: ReturnType<typeof answerFieldsOf> | undefined) => {
      // As publishWithJobs merges them: a suite's own column of an answer field's name wins.
      const published = fields ? merged<Record<string, unknown>>(fields, row) : row;
      const text = canonicalJson(published);
      this.#rows.add({ jobId, take, text, row: JSON.parse(text) as Record<string, unknown> });
    };
    if (answer === undefined) return add(undefined);
    const read = answer.then(
      (a) => add(answerFieldsOf(a, this.#rowText)),
      (err: unknown) => {
        this.#failed ??= err;
      },
    );
    this.#reads.add(read);
    void read.finally(() => this.#reads.delete(read));
    if (this.#reads.size >= READ_AT_ONCE) await Promise.race(this.#reads);
  }

  async finish(): Promise<PublishedOutputs> {
    const run = provenanceProjection.result(this.#run);
    if (!run || !this.#stream || !this.#artifacts) throw new RunNotFoundError(this.runId);
    // Jobs that never ended are published as they stand, as deriveOutputs publishes them.
    for (const jobId of this.#stream.held()) await this.#close(jobId);
    await Promise.all(this.#reads);
    if (this.#failed !== null) throw this.#failed;
    // Attempts of no started job (and of the run itself) are in usage.json too.
    for (const list of this.#jobCalls.values()) for (const c of list) this.#callSpill.add(c);
    this.#jobCalls.clear();
    const header = { runId: this.runId, suite: run.suite, model: run.model.name, scripted: run.model.scripted, config: run.config };
    const outcome = runOutcomeProjection.result(this.#outcome);
    const artifacts = this.#artifacts.result(this.#artifactsState);
    const stream = this.#stream;
    const rows = this.#rows;
    const callSpill = this.#callSpill;
    const retaken = this.#retaken;
    const runId = this.runId;
    const dispose = () => {
      rows.dispose();
      callSpill.dispose();
    };
    let written = false;
    return {
      own: null,
      outcome,
      streamed: true,
      spilled: () => ({ rows: rows.runs, calls: callSpill.runs }),
      dispose,
      async write(dir) {
        if (written) throw new Error('the streamed outputs are written once');
        written = true;
        try {
          const summary = stream.summary(header);
          let count = 0;
          function* lines(): Generator<string> {
            for (const r of rows.sorted()) {
              const stands = retaken.get(r.jobId);
              if (stands !== undefined && stands !== r.take) continue;
              count += 1;
              summary.add(r.row);
              yield `${r.text}\n`;
            }
          }
          await writeAtomic(join(dir, 'rows.jsonl'), lines());
          const finished = summary.finish(stream.needsCalls ? [...callSpill.sorted()] : []);
          // A run with jobs not ended says so in its summary and table; a complete run's stay as they were.
          const partial = partialNote(outcome);
          const sum = partial ? withPartial(finished.summary, partial.field) : finished.summary;
          const table = partial ? () => `${partial.line}\n${finished.table()}` : finished.table;
          await writeAtomic(join(dir, 'summary.json'), jsonDocumentChunks(sum));
          const usage = { ...usageTotalsOf(runId, callSpill.sorted()), calls: new LazyList(() => callSpill.sorted()) };
          await writeAtomic(join(dir, 'usage.json'), jsonDocumentChunks(usage));
          await writeAtomic(join(dir, 'run.json'), jsonDocumentChunks(run));
          for (const f of finished.files) await writeAtomic(join(dir, f.name), jsonDocumentChunks(f.value));
          await writeAtomicAll(artifacts.map((f) => ({ path: join(dir, f.path), content: f.content })));
          return { summary: sum, files: finished.files, own: null, rows: count, table };
        } finally {
          dispose();
        }
      },
    };
  }

  dispose(): void {
    this.#rows.dispose();
    this.#callSpill.dispose();
  }
}

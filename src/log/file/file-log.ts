// The embedded event log: one folder per run, `<root>/<runId>/log/`. The run folder also holds
// outputs written by other code, so this module only ever touches `log/` inside it.
import { access, mkdir, open, readdir } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { RUN_SCOPE, RunId, type EvalogEvent, type StoredEvent } from '../../events/index.js';
import { LogClosedError, LogNotWritableError } from '../errors.js';
import { foldRunInfo, runInfoOf } from '../run-info.js';
import type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from '../types.js';
import { FileBlobStore } from './blobs.js';
import { heldByLiveWriter } from './lock.js';
import { InvalidRunIdError, ReadOnlyLogError } from './errors.js';
import { streamEvents, type StreamSource, type Wakeup } from './stream.js';
import { RunWriter, type CommitInfo } from './writer.js';

/** Options of `FileEventLog.open`. */
export interface FileEventLogOptions {
  /** Folder holding one subfolder per run. */
  root: string;
  /** Minimum time between two group commits of a run (more events per fsync, more latency); default 0. */
  fsyncIntervalMs?: number;
  /** How often a follower checks for appends by another process, besides fs.watch; default 50. */
  pollIntervalMs?: number;
  /** Where recoverable problems (a cut torn tail) are reported; default stderr. */
  onWarning?: (message: string) => void;
  /** Called after each durable group commit (for metrics and benchmarks). */
  onCommit?: (commit: CommitInfo) => void;
  /** Reading only (replay): no folder is created, appends and blob writes are refused; default false. */
  readOnly?: boolean;
  /**
   * Run folders not named by their run id (a renamed or copied folder): run id → folder path. The
   * run id lives in the log, so such a folder resumes and replays under the id it recorded.
   */
  runFolders?: Readonly<Record<string, string>>;
}

/** Paths of one run's log files. */
export function runLogPaths(root: string, runId: string) {
  const dir = join(root, runId, 'log');
  return { dir, events: join(dir, 'events.evlog'), lock: join(dir, 'LOCK'), blobs: join(dir, 'blobs'), pack: join(dir, 'blobs.pack') };
}

/** The embedded EventLog: length-prefixed CRC frames per run, group commit, torn-tail recovery. */
export class FileEventLog implements EventLog {
  readonly #writers = new Map<string, Promise<RunWriter>>();
  readonly #ready = new Map<string, RunWriter>();
  readonly #wakeups = new Map<string, Set<Wakeup>>();
  readonly #blobStores = new Map<string, FileBlobStore>();
  #closing: Promise<void> | undefined;

  private constructor(
    readonly root: string,
    private readonly options: Required<Omit<FileEventLogOptions, 'onCommit' | 'runFolders'>> & Pick<FileEventLogOptions, 'onCommit' | 'runFolders'>,
  ) {}

  /** Opens (creating) the root folder; runs are opened lazily, for writing on their first append. */
  static async open(options: FileEventLogOptions): Promise<FileEventLog> {
    if (!options.readOnly) await mkdir(options.root, { recursive: true });
    return new FileEventLog(options.root, {
      root: options.root,
      fsyncIntervalMs: options.fsyncIntervalMs ?? 0,
      pollIntervalMs: options.pollIntervalMs ?? 50,
      onWarning: options.onWarning ?? ((m) => process.stderr.write(`evalog: warning: ${m}\n`)),
      onCommit: options.onCommit,
      readOnly: options.readOnly ?? false,
      runFolders: options.runFolders,
    });
  }

  append(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    try {
      if (this.#closing) throw new LogClosedError();
      if (events.length === 0) return Promise.resolve([]);
      const runId = events[0]!.runId;
      let oneRun = true;
      for (let i = 1; i < events.length && oneRun; i += 1) oneRun = events[i]!.runId === runId;
      if (oneRun) {
        // The common case, kept free of extra awaits: one run, its writer already open.
        const writer = this.#ready.get(runId);
        if (writer) return writer.append(events);
        return this.#writer(runId).then((w) => w.append(events));
      }
      return this.#appendSplit(events);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult> {
    if (this.#closing) return Promise.reject(new LogClosedError());
    const writer = this.#ready.get(event.runId);
    return writer ? writer.appendAfter(event, fence) : this.#writer(event.runId).then((w) => w.appendAfter(event, fence));
  }

  /** Runs commit independently: if one fails, the others may be stored; retrying is safe (idempotent). */
  async #appendSplit(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    const groups = new Map<string, number[]>();
    events.forEach((e, i) => {
      const group = groups.get(e.runId);
      if (group) group.push(i);
      else groups.set(e.runId, [i]);
    });
    const results: AppendResult[] = new Array(events.length);
    await Promise.all(
      [...groups].map(async ([runId, indices]) => {
        const writer = await this.#writer(runId);
        const got = await writer.append(indices.map((i) => events[i]!));
        indices.forEach((i, k) => {
          results[i] = got[k]!;
        });
      }),
    );
    return results;
  }

  /** The run's writer, opened once even when many appends race to open it. */
  #writer(runId: string): Promise<RunWriter> {
    if (this.#closing) return Promise.reject(new LogClosedError());
    if (this.options.readOnly) return Promise.reject(new ReadOnlyLogError(this.root, 'append'));
    let writer = this.#writers.get(runId);
    if (!writer) {
      const paths = this.#paths(this.#checked(runId, 'append'));
      writer = mkdir(paths.dir, { recursive: true })
        .then(() => RunWriter.open(runId, paths.events, paths.lock, { ...this.options, onDurable: (id) => this.#wake(id) }))
        .then((w) => {
          this.#ready.set(runId, w);
          return w;
        });
      // A failed open (locked, corrupt) is not remembered: the next append tries again.
      writer.catch(() => this.#writers.delete(runId));
      this.#writers.set(runId, writer);
    }
    return writer;
  }

  async claimWriter(runId: string): Promise<void> {
    const paths = this.#paths(this.#checked(runId, 'claim'));
    try {
      // Opening the writer takes log/LOCK (O_EXCL) and opens events.evlog read-write; the blob
      // pack is written later, mid-run, so it is checked now rather than found read-only then.
      // Opened, not access()-checked: root passes access() even on an immutable file.
      await this.#writer(runId);
      await open(paths.pack, 'r+').then(
        (fh) => fh.close(),
        (e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') throw e;
        },
      );
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        throw new LogNotWritableError((e as NodeJS.ErrnoException).path ?? paths.dir, code, { cause: e });
      }
      throw e;
    }
  }

  read(runId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    const all = this.#stream(runId, options.from, undefined);
    return options.jobId === undefined ? all : onlyJob(all, options.jobId);
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.#stream(runId, options.from, { signal: options.signal });
  }

  async *#stream(runId: string, from: number | undefined, follow: { signal?: AbortSignal | undefined } | undefined): AsyncGenerator<StoredEvent> {
    if (this.#closing) throw new LogClosedError();
    const source: StreamSource = {
      file: this.#paths(this.#checked(runId, follow ? 'subscribe' : 'read')).events,
      pollIntervalMs: this.options.pollIntervalMs,
      writer: () => this.#ready.get(runId),
      closed: () => this.#closing !== undefined,
      register: (wake) => {
        const set = this.#wakeups.get(runId) ?? this.#wakeups.set(runId, new Set()).get(runId)!;
        set.add(wake);
        return () => set.delete(wake);
      },
    };
    yield* streamEvents(source, Math.max(1, from ?? 1), follow);
  }

  #wake(runId: string): void {
    for (const wake of this.#wakeups.get(runId) ?? []) wake.bump();
  }

  async runs(): Promise<RunInfo[]> {
    if (this.#closing) throw new LogClosedError();
    const entries = await readdir(this.root, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return [];
      throw e;
    });
    const names = entries.filter((e) => e.isDirectory() && RunId.safeParse(e.name).success).map((e) => e.name);
    const infos: RunInfo[] = [];
    for (const runId of names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const paths = runLogPaths(this.root, runId);
      if (
        !(await access(paths.events).then(
          () => true,
          () => false,
        ))
      )
        continue;
      const info = runInfoOf(runId, []);
      try {
        for await (const e of this.read(runId)) foldRunInfo(info, e);
      } catch (e) {
        if (e instanceof LogClosedError) throw e;
        // One damaged run is listed with its error, named from the run folder, not the server's path.
        infos.push({
          ...info,
          status: 'damaged',
          error: String((e as Error).message ?? e)
            .split(`${this.root}${sep}`)
            .join(''),
        });
        continue;
      }
      // A started run whose writer is gone (no lock, or its holder is dead) crashed: it is not running.
      if (info.status === 'running' && !(await heldByLiveWriter(paths.lock))) info.status = 'interrupted';
      infos.push(info);
    }
    return infos;
  }

  blobs(runId: string): BlobStore {
    // One store per run, so its memory of stored blobs serves every caller of this log.
    let store = this.#blobStores.get(runId);
    if (!store) {
      const paths = this.#paths(this.#checked(runId, 'blobs'));
      store = new FileBlobStore({
        dir: paths.blobs,
        pack: paths.pack,
        readOnly: this.options.readOnly,
        // Only the holder of the run's writer lock appends to its pack.
        claimWriter: () => this.#writer(runId).then(() => undefined),
        onWarning: this.options.onWarning,
      });
      this.#blobStores.set(runId, store);
    }
    return store;
  }

  /** Flushes pending appends, releases writer locks and files, and ends subscriptions. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      for (const runId of this.#wakeups.keys()) this.#wake(runId);
      await Promise.all([...this.#blobStores.values()].map((s) => s.close()));
      const writers = await Promise.allSettled(this.#writers.values());
      await Promise.all(writers.map((w) => (w.status === 'fulfilled' ? w.value.close() : undefined)));
    })();
    return this.#closing;
  }

  /** A run's log files: in its folder under the root, or in the folder `runFolders` names for it. */
  #paths(runId: string) {
    const folder = this.options.runFolders?.[runId];
    return folder === undefined ? runLogPaths(this.root, runId) : runLogPaths(dirname(folder), basename(folder));
  }

  /** Run ids become folder names, so anything that could escape the root is refused. */
  #checked(runId: string, where: string): string {
    if (!RunId.safeParse(runId).success) throw new InvalidRunIdError(runId, where);
    return runId;
  }
}

// One file holds a whole run, so a job's events are a filter over it.
async function* onlyJob(events: AsyncIterable<StoredEvent>, jobId: string): AsyncGenerator<StoredEvent> {
  const runLevel = jobId === RUN_SCOPE;
  for await (const e of events) if (runLevel ? e.jobId === undefined : e.jobId === jobId) yield e;
}

// An EventLog held in memory, for tests and for users' own suites' tests (evalog/testing). It
// passes the same contract suite as the file and JetStream logs. Events are stored encoded, as the
// other logs store them, so a reader gets a decoded (upcast) copy and never the caller's object.
import { createHash } from 'node:crypto';
import { decodeEvent, encodeEvent, RUN_SCOPE, withSeq, type EvalogEvent, type StoredEvent } from '../../events/index.js';
import { BlobNotFoundError, FencedOffError, LogClosedError, LogLockedError } from '../errors.js';
import { runInfoOf } from '../run-info.js';
import type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from '../types.js';

/** One run's storage: encoded events in seq order (seq = index + 1), their ids, and blobs. */
interface MemoryRun {
  frames: Buffer[];
  jobIds: (string | undefined)[];
  ids: Map<string, number>;
  lastByScope: Map<string, number>;
  blobs: Map<string, Uint8Array>;
  /** The open log holding the run's writer lock, if any (a closed log releases it). */
  holder: MemoryEventLog | null;
  /** Woken on every append, so subscribers follow without polling. */
  waiters: Set<() => void>;
}

/**
 * The storage behind memory logs. Two logs opened on one store see the same runs, as two processes
 * see one folder: that is how a test "reopens" a memory log or plays a second writer.
 */
export class MemoryStore {
  readonly runs = new Map<string, MemoryRun>();

  /** The run's storage, created empty on first use. */
  run(runId: string): MemoryRun {
    let run = this.runs.get(runId);
    if (!run) {
      run = { frames: [], jobIds: [], ids: new Map(), lastByScope: new Map(), blobs: new Map(), holder: null, waiters: new Set() };
      this.runs.set(runId, run);
    }
    return run;
  }
}

/** The in-memory EventLog: per-run seq from 1, idempotent by id, a writer lock per run like the file log's. */
export class MemoryEventLog implements EventLog {
  #closed = false;
  readonly #held = new Set<MemoryRun>();
  readonly #onClose = new Set<() => void>();

  private constructor(readonly store: MemoryStore) {}

  /** A log on `store` (a new, empty store when absent). */
  static open(store: MemoryStore = new MemoryStore()): MemoryEventLog {
    return new MemoryEventLog(store);
  }

  async append(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    this.#open();
    // Encode and lock every run first, so a bad event or a held run fails the call before any seq is handed out.
    const frames = events.map((e) => (this.store.runs.get(e.runId)?.ids.has(e.id) ? null : encodeEvent(e)));
    for (const e of events) this.#claim(e.runId);
    return events.map((e, i) => this.#store(e, frames[i] ?? null));
  }

  async appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult> {
    this.#open();
    const run = this.#claim(event.runId);
    // The fence is checked before dedup, as in the file log: a stale writer's resend is refused, not a duplicate.
    const last = run.lastByScope.get(event.jobId ?? '') ?? 0;
    if (last !== fence.afterSeq) throw new FencedOffError(event.id, fence.afterSeq);
    return this.#store(event, run.ids.has(event.id) ? null : encodeEvent(event));
  }

  #store(event: EvalogEvent, frame: Buffer | null): AppendResult {
    const run = this.store.run(event.runId);
    const known = run.ids.get(event.id);
    if (known !== undefined) return { id: event.id, seq: known, duplicate: true };
    run.frames.push(frame ?? encodeEvent(event));
    run.jobIds.push(event.jobId);
    const seq = run.frames.length;
    run.ids.set(event.id, seq);
    run.lastByScope.set(event.jobId ?? '', seq);
    for (const wake of run.waiters) wake();
    return { id: event.id, seq, duplicate: false };
  }

  async claimWriter(runId: string): Promise<void> {
    this.#open();
    this.#claim(runId);
  }

  // Another open log on the same store holding the run plays another live process holding its lock.
  #claim(runId: string): MemoryRun {
    const run = this.store.run(runId);
    if (run.holder && run.holder !== this && !run.holder.#closed) {
      throw new LogLockedError(`memory:${runId}`, `run ${runId} is being written by another open memory log (its writer lock is held)`);
    }
    run.holder = this;
    this.#held.add(run);
    return run;
  }

  read(runId: string, options: ReadOptions = {}): AsyncIterable<StoredEvent> {
    return this.#stream(runId, options, undefined);
  }

  subscribe(runId: string, options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.#stream(runId, options, options.signal ?? null);
  }

  async *#stream(runId: string, options: ReadOptions, follow: AbortSignal | null | undefined): AsyncGenerator<StoredEvent> {
    this.#open();
    const run = this.store.run(runId);
    const only = options.jobId === undefined ? null : options.jobId === RUN_SCOPE ? undefined : options.jobId;
    const end = follow === undefined ? run.frames.length : Infinity; // a read ends at the current end
    for (let i = Math.max(1, options.from ?? 1) - 1; i < end; i += 1) {
      while (i >= run.frames.length) {
        if (this.#closed || follow?.aborted) return;
        await this.#next(run, follow ?? null);
        if (this.#closed || follow?.aborted) return;
      }
      if (only !== null && run.jobIds[i] !== only) continue;
      yield withSeq(decodeEvent(run.frames[i]!, `memory:${runId} seq ${i + 1}`), i + 1);
    }
  }

  /** Resolves on the run's next append, on abort, or when this log closes. */
  #next(run: MemoryRun, signal: AbortSignal | null): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        run.waiters.delete(done);
        this.#onClose.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      run.waiters.add(done);
      this.#onClose.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  async runs(): Promise<RunInfo[]> {
    this.#open();
    const infos: RunInfo[] = [];
    for (const runId of [...this.store.runs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const run = this.store.runs.get(runId)!;
      if (run.frames.length === 0) continue; // touched (a read, a blob) but never written: not a run
      const info = runInfoOf(
        runId,
        run.frames.map((f, i) => withSeq(decodeEvent(f, `memory:${runId} seq ${i + 1}`), i + 1)),
      );
      // A started run whose writer is gone (its log closed) crashed: it is not running.
      if (info.status === 'running' && (!run.holder || run.holder.#closed)) info.status = 'interrupted';
      infos.push(info);
    }
    return infos;
  }

  blobs(runId: string): BlobStore {
    const store = this.store;
    const check = () => this.#open();
    return {
      async put(bytes) {
        check();
        const hash = createHash('sha256').update(bytes).digest('hex');
        const blobs = store.run(runId).blobs;
        if (!blobs.has(hash)) blobs.set(hash, Uint8Array.from(bytes));
        return hash;
      },
      async get(hash) {
        check();
        const bytes = store.runs.get(runId)?.blobs.get(hash);
        if (!bytes) throw new BlobNotFoundError(hash);
        return Uint8Array.from(bytes);
      },
      async has(hash) {
        check();
        return store.runs.get(runId)?.blobs.has(hash) ?? false;
      },
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const run of this.#held) if (run.holder === this) run.holder = null;
    this.#held.clear();
    for (const wake of [...this.#onClose]) wake();
  }

  #open(): void {
    if (this.#closed) throw new LogClosedError();
  }
}

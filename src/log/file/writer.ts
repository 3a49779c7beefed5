// The single writer of one run's log: group commit (one write and one fdatasync per batch of
// whatever callers queued meanwhile), seq assignment and idempotency by event id.
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeEvent, type EvalogEvent } from '../../events/index.js';
import { FencedOffError, LogClosedError } from '../errors.js';
import type { EventIdIndex } from '../id-index.js';
import type { AppendResult, Fence } from '../types.js';
import { EventTooLargeError, LogWriteError } from './errors.js';
import { FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES, writeFrame } from './format.js';
import { WriterLock } from './lock.js';
import { writeDurably } from './durable.js';
import { CHECKPOINT_EVERY, openForWrite } from './recover.js';
import { CommittedTail, type TailSlice } from './committed-tail.js';

/** One durable group commit, as reported to `onCommit`. */
export interface CommitInfo {
  runId: string;
  events: number;
  bytes: number;
}

/** What a RunWriter needs from its log. */
export interface RunWriterOptions {
  /** Minimum time between two commits of a run; 0 commits as soon as the previous one is done. */
  fsyncIntervalMs: number;
  onWarning: (message: string) => void;
  /** Called after each batch is durable, so subscribers wake without polling. */
  onDurable: (runId: string) => void;
  onCommit?: (commit: CommitInfo) => void;
}

interface Batch {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

function newBatch(): Batch {
  const batch = {} as Batch;
  batch.promise = new Promise<void>((resolve, reject) => Object.assign(batch, { resolve, reject }));
  return batch;
}

/** Appends to one run's events.evlog while holding its writer lock. */
export class RunWriter {
  /** Bytes of the file known to be durable; in-process readers stop here. */
  durableSize: number;
  /** Number of durable events (= seq of the last one). */
  durableSeq: number;
  #nextSeq: number;
  #pending: Buffer[] = [];
  /** The events of #pending, in the same order (what the committed tail keeps). */
  #pendingEvents: EvalogEvent[] = [];
  readonly #tail: CommittedTail;
  #pendingBytes = 0;
  #batch: Batch | undefined;
  #loop: Promise<void> | undefined;
  #lastCommit = Number.NEGATIVE_INFINITY;
  #failed: Error | undefined;
  #closed = false;

  private constructor(
    readonly runId: string,
    readonly file: string,
    private readonly fh: FileHandle,
    private readonly lock: WriterLock,
    private readonly ids: EventIdIndex,
    private readonly lastByScope: Map<string, number>,
    private readonly checkpoints: number[],
    size: number,
    private readonly options: RunWriterOptions,
  ) {
    this.durableSize = size;
    this.durableSeq = ids.size;
    this.#nextSeq = ids.size + 1;
    this.#tail = new CommittedTail(this.#nextSeq);
  }

  /** Takes the run's lock, then opens and recovers its log file. */
  static async open(runId: string, file: string, lockFile: string, options: RunWriterOptions): Promise<RunWriter> {
    const lock = await WriterLock.acquire(lockFile);
    try {
      const log = await openForWrite(file, options.onWarning);
      return new RunWriter(runId, file, log.fh, lock, log.ids, log.lastByScope, log.checkpoints, log.size, options);
    } catch (e) {
      await lock.release();
      throw e;
    }
  }

  /** Where a reader wanting `from` may start: a frame offset and the seq of the frame before it. */
  startFor(from: number): { offset: number; seqBefore: number } | undefined {
    const k = Math.min(Math.floor((from - 1) / CHECKPOINT_EVERY), this.checkpoints.length - 1);
    return k < 0 ? undefined : { offset: this.checkpoints[k]!, seqBefore: k * CHECKPOINT_EVERY };
  }

  /** The durable events from seq `from` on that this writer still holds in memory (see CommittedTail), or undefined. */
  committedFrom(from: number): TailSlice | undefined {
    return this.#tail.from(from);
  }

  /**
   * Appends one event only if its job's last seq (stored or queued) is `fence.afterSeq`. The check
   * and the seq assignment happen in one synchronous step, and only this process writes the run.
   */
  appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult> {
    const last = this.lastByScope.get(event.jobId ?? '') ?? 0;
    if (last !== fence.afterSeq) return Promise.reject(new FencedOffError(event.id, fence.afterSeq));
    return this.append([event]).then((r) => r[0]!);
  }

  /** Queues the events; resolves, in input order, once every one of them is durable. */
  append(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    if (this.#closed) return Promise.reject(new LogClosedError());
    if (this.#failed) return Promise.reject(this.#failed);
    // Encode everything first, so a bad event fails the call before any seq is handed out.
    const n = events.length;
    const known: (number | undefined)[] = new Array(n);
    const payloads: (Buffer | undefined)[] = new Array(n);
    for (let i = 0; i < n; i += 1) {
      const e = events[i]!;
      const seen = this.ids.get(e.id);
      known[i] = seen;
      if (seen !== undefined) continue;
      const payload = encodeEvent(e);
      if (payload.length > MAX_PAYLOAD_BYTES) throw new EventTooLargeError(e.id, payload.length, MAX_PAYLOAD_BYTES);
      payloads[i] = payload;
    }
    let last = 0;
    const results: AppendResult[] = new Array(n);
    for (let i = 0; i < n; i += 1) {
      const id = events[i]!.id;
      // A repeat within this call shows up once its first occurrence is in the index.
      const seen = known[i] ?? (n > 1 ? this.ids.get(id) : undefined);
      if (seen !== undefined) {
        if (seen > last) last = seen;
        results[i] = { id, seq: seen, duplicate: true };
        continue;
      }
      const payload = payloads[i]!;
      const seq = this.#nextSeq++;
      this.ids.set(id, seq);
      this.lastByScope.set(events[i]!.jobId ?? '', seq);
      this.#pending.push(payload);
      this.#pendingEvents.push(events[i]!);
      this.#pendingBytes += FRAME_HEADER_BYTES + payload.length;
      last = seq;
      results[i] = { id, seq, duplicate: false };
    }
    // Duplicates of events still in flight wait for them: a result means "durable".
    if (last <= this.durableSeq) return Promise.resolve(results);
    this.#batch ??= newBatch();
    this.#loop ??= this.#run();
    return this.#batch.promise.then(() => results);
  }

  async #run(): Promise<void> {
    // Let every caller of this turn of the event loop join the first batch.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.#batch && !this.#failed) {
        const wait = this.#lastCommit + this.options.fsyncIntervalMs - performance.now();
        if (wait > 0) await sleep(wait);
        await this.#commit();
      }
    } finally {
      this.#loop = undefined;
    }
  }

  async #commit(): Promise<void> {
    const batch = this.#batch!;
    const payloads = this.#pending;
    const events = this.#pendingEvents;
    const bytes = this.#pendingBytes;
    this.#batch = undefined;
    this.#pending = [];
    this.#pendingEvents = [];
    this.#pendingBytes = 0;
    const buf = Buffer.allocUnsafe(bytes);
    const marks: number[] = []; // offsets of the frames that become checkpoints
    const ends: number[] = new Array(payloads.length); // where each frame ends in the file (the committed tail's)
    for (let i = 0, at = 0; i < payloads.length; i += 1) {
      if ((this.durableSeq + i) % CHECKPOINT_EVERY === 0) marks.push(this.durableSize + at);
      at = writeFrame(buf, at, payloads[i]!);
      ends[i] = this.durableSize + at;
    }
    try {
      // Appends queue up for the next batch while this one's fsync runs off-thread.
      await writeDurably(this.fh.fd, buf, this.durableSize);
    } catch (cause) {
      await this.#fail(new LogWriteError(this.file, { cause }), batch);
      return;
    }
    this.checkpoints.push(...marks);
    this.#tail.committed(events, ends, this.durableSize);
    this.durableSize += bytes;
    this.durableSeq += payloads.length;
    this.#lastCommit = performance.now();
    batch.resolve();
    this.options.onCommit?.({ runId: this.runId, events: payloads.length, bytes });
    this.options.onDurable(this.runId);
  }

  /** After a failed write or fsync the page cache cannot be trusted, so the run stops here. */
  async #fail(error: Error, batch: Batch): Promise<void> {
    this.#failed = error;
    batch.reject(error);
    this.#batch?.reject(error);
    this.#batch = undefined;
    this.#pending = [];
    this.#pendingEvents = [];
    this.#pendingBytes = 0;
    // Best effort: drop the half-written batch so the file ends at the last durable frame.
    await this.fh.truncate(this.durableSize).catch(() => undefined);
  }

  /** Flushes what is queued, then releases the file and the lock. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#loop) await this.#loop;
    await this.fh.close();
    await this.lock.release();
  }
}

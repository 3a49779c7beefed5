import type { EvalogEvent, StoredEvent } from '../events/index.js';

/** What `append` did with one event, in input order. */
export interface AppendResult {
  id: string;
  /** Position of the event in the log (the existing one for a duplicate). */
  seq: number;
  /** True when an event with this id was already stored: nothing was written. */
  duplicate: boolean;
}

/** Where to start reading: `from` is an inclusive `seq`; absent means the start. */
export interface ReadOptions {
  from?: number;
  /** Only this job's events (`RUN_SCOPE` for the run-level ones); absent = every event of the run. */
  jobId?: string;
}

/** Where a fenced append expects the job's stream to be, and who writes. */
export interface Fence {
  /** Seq of the last stored event of the event's job (0 = none); any other value refuses the append. */
  afterSeq: number;
  /** The writer's identity: a resend by the same writer is a duplicate, another writer's event is not. */
  writer: string;
}

/** `subscribe` reads from `from`, then follows live until the signal aborts or the consumer stops. */
export interface SubscribeOptions extends ReadOptions {
  signal?: AbortSignal;
}

/** A run as the log knows it. */
export interface RunInfo {
  runId: string;
  /**
   * running = started, not completed, its writer alive; interrupted = stopped before the end (by an
   * interrupt, or its writer is gone: a crash); empty = no RunStarted yet; damaged = its log cannot
   * be read (see `error`).
   */
  status: 'running' | 'completed' | 'interrupted' | 'empty' | 'damaged';
  /** Why a damaged run cannot be read, naming the run rather than a server path. */
  error?: string;
  suite: string | null;
  startedAt: string | null;
  events: number;
}

/** Content-addressed storage beside the log for large, repeated payloads. */
export interface BlobStore {
  /** Stores the bytes (idempotent) and returns their sha256 in hex. */
  put(bytes: Uint8Array): Promise<string>;
  /** Returns the bytes of a stored blob; throws `BlobNotFoundError` when absent. */
  get(hash: string): Promise<Uint8Array>;
  has(hash: string): Promise<boolean>;
}

/** The one event-log interface; the embedded file log and JetStream implement it. */
export interface EventLog {
  /** Appends in order, batched; a re-append of a known id is a no-op reported as duplicate. */
  append(events: readonly EvalogEvent[]): Promise<AppendResult[]>;
  /**
   * Appends one job event only if the job's stream still ends at `fence.afterSeq`; otherwise throws
   * `FencedOffError` and stores nothing. Workers write through it, so a worker that lost its job to
   * another cannot interleave late events with the new holder's.
   */
  appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult>;
  /** Ordered iteration of a run's stored events, ending at the current end. */
  read(runId: string, options?: ReadOptions): AsyncIterable<StoredEvent>;
  /** Catch-up from `from`, then live, as one async iterable. */
  subscribe(runId: string, options?: SubscribeOptions): AsyncIterable<StoredEvent>;
  /**
   * Takes the run's writer lock (held until `close()`) and proves the log writable, so a command
   * that makes effects (model calls, queued jobs) can refuse before the first one. Throws
   * `LogLockedError` naming the live holder, or `LogNotWritableError` naming the file. Idempotent.
   */
  claimWriter(runId: string): Promise<void>;
  /** Every run in the log with its status, sorted by run id; a damaged run is listed with its error. */
  runs(): Promise<RunInfo[]>;
  /** The blob store of one run. */
  blobs(runId: string): BlobStore;
  /** Flushes and releases resources; further appends fail. */
  close(): Promise<void>;
}

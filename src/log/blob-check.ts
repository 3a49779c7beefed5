// Checking the blobs a run's events reference: each must be in the store with bytes matching
// its sha256. Every command that reads a run checks them, so a deleted or edited blob is never
// silently replaced by a guess (replay and resume would serve the request from the event alone).
import type { StoredEvent } from '../events/index.js';
import { BlobNotFoundError, LogCorruptedError } from './errors.js';
import type { BlobStore } from './types.js';
import { UserError } from '../core/errors.js';

/** A blob that an event references is missing from the run's store or does not match its sha256. */
export class BlobDamagedError extends UserError {
  override name = 'BlobDamagedError';
  constructor(
    readonly hash: string,
    readonly eventId: string,
    readonly seq: number,
    readonly problem: 'missing' | 'altered',
    options?: { cause?: unknown },
  ) {
    // No path in the message: the viewer shows it to the browser.
    const what = problem === 'missing' ? "is missing from the run's blob store" : 'was altered: its bytes do not match its sha256';
    super(`blob ${hash}, referenced by event ${eventId} (seq ${seq}), ${what}`, options);
  }
}

/** The blob hashes one event references (request messages). */
export function blobRefsOf(e: StoredEvent): readonly string[] {
  return e.type === 'ProviderCallRequested' ? e.data.messages : [];
}

/** Reads one blob, turning a missing or altered one into a BlobDamagedError naming `e`. */
export async function readCheckedBlob(store: BlobStore, hash: string, e: Pick<StoredEvent, 'id' | 'seq'>): Promise<Uint8Array> {
  try {
    return await store.get(hash);
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw new BlobDamagedError(hash, e.id, e.seq, 'missing', { cause: err });
    if (err instanceof LogCorruptedError) throw new BlobDamagedError(hash, e.id, e.seq, 'altered', { cause: err });
    throw err;
  }
}

/** How many blobs are read at once (they are small files or KV gets). */
const PARALLEL = 8;

/**
 * Remembers, for each blob, the first event that references it, and checks each blob once. Feed
 * it events in log order with `note`, then `verify`; or `checkEvent` one at a time (live).
 */
export class BlobChecker {
  /** Blobs already checked, and those noted but not checked yet with their earliest referrer. */
  readonly #checked = new Set<string>();
  #pending = new Map<string, { id: string; seq: number }>();

  constructor(private readonly store: BlobStore) {}

  /**
   * Records the blobs of one event. The earliest reference (lowest seq) wins whatever order the
   * events come in: callers may feed them job by job, and a blob two jobs share must still be
   * reported against the event that first named it.
   */
  note(e: StoredEvent): void {
    for (const h of blobRefsOf(e)) {
      if (this.#checked.has(h)) continue;
      const known = this.#pending.get(h);
      if (known === undefined || e.seq < known.seq) this.#pending.set(h, { id: e.id, seq: e.seq });
    }
  }

  /** Checks every noted blob not checked yet; throws for the first bad one in log order. */
  async verify(): Promise<void> {
    const todo = [...this.#pending].sort((a, b) => a[1].seq - b[1].seq || (a[0] < b[0] ? -1 : 1));
    this.#pending = new Map();
    for (const [h] of todo) this.#checked.add(h);
    const bad: BlobDamagedError[] = [];
    for (let i = 0; i < todo.length; i += PARALLEL) {
      await Promise.all(
        todo.slice(i, i + PARALLEL).map(async ([hash, e]) => {
          try {
            await readCheckedBlob(this.store, hash, e);
          } catch (err) {
            if (!(err instanceof BlobDamagedError)) throw err;
            bad.push(err);
          }
        }),
      );
      if (bad.length > 0) throw bad.reduce((a, b) => (b.seq < a.seq ? b : a));
    }
  }

  /** Notes and checks one event's blobs at once (a live stream). */
  async checkEvent(e: StoredEvent): Promise<void> {
    if (blobRefsOf(e).length === 0) return;
    this.note(e);
    await this.verify();
  }

  /** Passes events through, noting their blobs; call `verify` once the stream is consumed. */
  async *noting(events: AsyncIterable<StoredEvent>): AsyncGenerator<StoredEvent> {
    for await (const e of events) {
      this.note(e);
      yield e;
    }
  }
}

// A run's outputs derived while it runs, from the events its follower delivers (the progress lines
// already decode every event once, in log order), so the end of a run does not read and decode
// its whole log again. Same events, same order, same fold: the files equal a rebuild's.
import type { StoredEvent } from '../events/index.js';
import type { BlobStore } from '../log/index.js';
import { deriveOutputs, type RunOutputs } from './outputs.js';
import type { OutputHooksOf } from './report.js';

/** The events fed were not the run's in log order from its first. */
export class LiveOutputsGapError extends Error {
  override name = 'LiveOutputsGapError';
}

/** Feeds a run's events, in log order from its first, into `deriveOutputs` as they arrive. */
export class LiveOutputs {
  #queue: StoredEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #next = 1;
  #gap: string | undefined;
  /** The outputs, settled once `end` was called (rejected if the events did not make a run). */
  readonly outputs: Promise<RunOutputs>;

  constructor(runId: string, hooksOf: OutputHooksOf, blobs: Pick<BlobStore, 'get'>) {
    this.outputs = deriveOutputs(runId, this.#events(), hooksOf, blobs);
    // Read only for a completed run; an interrupted one leaves it unread.
    this.outputs.catch(() => undefined);
  }

  /**
   * Takes the next event of the run. Events must come each seq once and in order; any other feed
   * ends the outputs with LiveOutputsGapError, and the caller derives them from the log instead.
   */
  push(e: StoredEvent): void {
    if (this.#ended) return;
    if (e.seq !== this.#next) {
      this.#gap = `event seq ${e.seq} came where ${this.#next} was due`;
      this.#ended = true;
      this.#wake?.();
      return;
    }
    this.#next += 1;
    this.#queue.push(e);
    this.#wake?.();
  }

  /** No more events: the outputs settle. */
  end(): Promise<RunOutputs> {
    this.#ended = true;
    this.#wake?.();
    return this.outputs;
  }

  async *#events(): AsyncGenerator<StoredEvent> {
    for (;;) {
      if (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        yield* batch;
        continue;
      }
      if (this.#gap !== undefined) throw new LiveOutputsGapError(this.#gap);
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}

// The last events this process's writer made durable, kept as the objects it was given, so that
// an in-process follower (the run's progress lines, a library caller's onEvent) takes them from
// memory instead of reading back and decoding every frame it has just seen written. Anything
// older, or a follower that fell behind, reads the file as before: the file is the truth.
import type { EvalogEvent } from '../../events/index.js';

/** At most this many events are kept; a follower further behind reads the file. */
const MAX_EVENTS = 2048;
/** At most this many bytes of their frames: a few large events (long model replies) cannot pin much memory. */
const MAX_BYTES = 4 * 1024 * 1024;

/** Durable events from seq `from` on: `events[i]` for `start <= i < end`, the first of them at seq `from`. */
export interface TailSlice {
  readonly events: readonly EvalogEvent[];
  readonly start: number;
  readonly end: number;
  /** Byte offset just past the frame of the event at index `i` of `events`. */
  endOffset(i: number): number;
}

export class CommittedTail {
  // Arrays only grow at the end, or are replaced by a compacted copy: a slice handed out stays valid.
  #events: EvalogEvent[] = [];
  #ends: number[] = [];
  #sizes: number[] = [];
  #head = 0;
  #firstSeq: number;
  #bytes = 0;

  /** `nextSeq`: the seq the next durable event will have (1 + the events the log holds already). */
  constructor(nextSeq: number) {
    this.#firstSeq = nextSeq;
  }

  /** Records a durable group commit: its events in order, each with its frame's size; `endOffset` is where the last frame ends. */
  committed(events: readonly EvalogEvent[], frameSizes: readonly number[], endOffset: number): void {
    let at = endOffset;
    for (const size of frameSizes) at -= size;
    for (let i = 0; i < events.length; i += 1) {
      at += frameSizes[i]!;
      this.#events.push(events[i]!);
      this.#ends.push(at);
      this.#sizes.push(frameSizes[i]!);
      this.#bytes += frameSizes[i]!;
    }
    while (this.#events.length - this.#head > MAX_EVENTS || (this.#bytes > MAX_BYTES && this.#events.length - this.#head > 1)) {
      this.#bytes -= this.#sizes[this.#head]!;
      this.#head += 1;
      this.#firstSeq += 1;
    }
    if (this.#head >= MAX_EVENTS) {
      this.#events = this.#events.slice(this.#head);
      this.#ends = this.#ends.slice(this.#head);
      this.#sizes = this.#sizes.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The kept durable events from seq `from` on, or undefined when `from` is no longer kept or nothing from it is durable yet. */
  from(from: number): TailSlice | undefined {
    const kept = this.#events.length - this.#head;
    if (from < this.#firstSeq || from >= this.#firstSeq + kept) return undefined;
    const ends = this.#ends;
    return { events: this.#events, start: this.#head + (from - this.#firstSeq), end: this.#events.length, endOffset: (i) => ends[i]! };
  }
}

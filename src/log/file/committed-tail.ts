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
  /** Byte offset just past the frame of `events[i]`. */
  readonly ends: readonly number[];
  readonly start: number;
  readonly end: number;
}

export class CommittedTail {
  // Arrays only grow at the end, or are replaced by a compacted copy: a slice handed out stays valid.
  #events: EvalogEvent[] = [];
  #ends: number[] = [];
  #head = 0;
  #firstSeq: number;
  /** Byte offset where the frame of the oldest kept event starts. */
  #keptFrom = 0;

  /** `nextSeq`: the seq the next durable event will have (1 + the events the log holds already). */
  constructor(nextSeq: number) {
    this.#firstSeq = nextSeq;
  }

  /** Records a durable group commit: its events in order, `ends[i]` where event i's frame ends, `start` where the first one's begins. */
  committed(events: readonly EvalogEvent[], ends: readonly number[], start: number): void {
    if (this.#events.length === this.#head) this.#keptFrom = start;
    for (let i = 0; i < events.length; i += 1) {
      this.#events.push(events[i]!);
      this.#ends.push(ends[i]!);
    }
    const last = this.#ends[this.#ends.length - 1]!;
    while (this.#events.length - this.#head > MAX_EVENTS || (last - this.#keptFrom > MAX_BYTES && this.#events.length - this.#head > 1)) {
      this.#keptFrom = this.#ends[this.#head]!;
      this.#head += 1;
      this.#firstSeq += 1;
    }
    if (this.#head >= MAX_EVENTS) {
      this.#events = this.#events.slice(this.#head);
      this.#ends = this.#ends.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The kept durable events from seq `from` on, or undefined when `from` is no longer kept or nothing from it is durable yet. */
  from(from: number): TailSlice | undefined {
    const kept = this.#events.length - this.#head;
    if (from < this.#firstSeq || from >= this.#firstSeq + kept) return undefined;
    return { events: this.#events, ends: this.#ends, start: this.#head + (from - this.#firstSeq), end: this.#events.length };
  }
}

// Which event ids a run's log holds, and at which seq: the index behind idempotent appends. It
// lives as long as the run's writer and has one entry per event, so its size is the run's memory
// growth per case. evalog's own ids are `<run>/<scope>/<n>` (events/envelope.ts eventId), n
// counting up from 1 in each scope: those are kept as one list of seqs per scope, the scope's
// prefix held once, instead of a string and a map slot per event (about 0.75 KB a case at
// 26 000 cases; bench/README.md, memory). Any other id (a hand-written log's) is kept whole.

import { own } from '../core/strings.js';

/** Above this n an id is kept whole: a list that long would be mostly holes. */
const MAX_LISTED_N = 1_000_000;

/** A map of event id → seq (only `get`, `has`, `set` and `size`), compact for ids of the `<prefix>/<n>` shape. */
export class EventIdIndex {
  #size = 0;
  /** Seqs by n, per `<run>/<scope>` prefix; a hole is an n never stored. */
  readonly #lists = new Map<string, number[]>();
  readonly #whole = new Map<string, number>();

  get size(): number {
    return this.#size;
  }

  get(id: string): number | undefined {
    const n = listedN(id);
    if (n < 0) return this.#whole.get(id);
    return this.#lists.get(id.slice(0, id.length - nDigits(n) - 1))?.[n];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Stores the id's seq (replacing it if the id was stored). */
  set(id: string, seq: number): this {
    const n = listedN(id);
    if (n < 0) {
      if (!this.#whole.has(id)) this.#size += 1;
      this.#whole.set(id, seq);
      return this;
    }
    const prefix = id.slice(0, id.length - nDigits(n) - 1);
    let list = this.#lists.get(prefix);
    if (list === undefined) {
      list = [];
      this.#lists.set(own(prefix), list);
    }
    if (list[n] === undefined) this.#size += 1;
    list[n] = seq;
    return this;
  }
}

/**
 * The id's n when its `/<n>` is a plain positive integer (digits, no leading zero, at most
 * MAX_LISTED_N), so that the id and (prefix, n) map one to one; else -1 (kept whole).
 */
function listedN(id: string): number {
  const cut = id.lastIndexOf('/');
  const digits = id.length - cut - 1;
  if (cut < 0 || digits < 1 || digits > 7) return -1;
  let n = id.charCodeAt(cut + 1) - 48;
  if (n < 1 || n > 9) return -1;
  for (let i = cut + 2; i < id.length; i += 1) {
    const d = id.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n <= MAX_LISTED_N ? n : -1;
}

/** How many decimal digits n (≥ 1, no leading zero) has. */
function nDigits(n: number): number {
  let digits = 1;
  for (let m = n; m >= 10; m = Math.floor(m / 10)) digits += 1;
  return digits;
}

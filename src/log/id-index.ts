// Which event ids a run's log holds, and at which seq: the index behind idempotent appends. It
// lives as long as the run's writer and has one entry per event, so its size is the run's memory
// growth per case. evalog's own ids are `<run>/<scope>/<n>` (events/envelope.ts eventId), n
// counting up from 1 in each scope: those are kept as one list of seqs per scope, the scope's
// prefix held once, instead of a string and a map slot per event (about 0.75 KB a case at
// 26 000 cases; bench/README.md, memory). Any other id (a hand-written log's) is kept whole.

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
    const cut = listedAt(id);
    if (cut < 0) return this.#whole.get(id);
    return this.#lists.get(id.slice(0, cut))?.[Number(id.slice(cut + 1))];
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  /** Stores the id's seq (replacing it if the id was stored). */
  set(id: string, seq: number): this {
    const cut = listedAt(id);
    if (cut < 0) {
      if (!this.#whole.has(id)) this.#size += 1;
      this.#whole.set(id, seq);
      return this;
    }
    const prefix = id.slice(0, cut);
    let list = this.#lists.get(prefix);
    if (list === undefined) {
      list = [];
      // Its own copy of the prefix: a slice would keep the whole id string alive.
      this.#lists.set(Buffer.from(prefix, 'utf8').toString('utf8'), list);
    }
    const n = Number(id.slice(cut + 1));
    if (list[n] === undefined) this.#size += 1;
    list[n] = seq;
    return this;
  }
}

/**
 * Where the id's `/<n>` begins when n is a plain positive integer (digits, no leading zero, at
 * most MAX_LISTED_N), so that the id and (prefix, n) map one to one; else -1 (kept whole).
 */
function listedAt(id: string): number {
  const cut = id.lastIndexOf('/');
  const digits = id.length - cut - 1;
  if (cut < 0 || digits < 1 || digits > 7) return -1;
  const first = id.charCodeAt(cut + 1);
  if (first < 49 || first > 57) return -1; // '1'..'9'
  for (let i = cut + 2; i < id.length; i += 1) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  return Number(id.slice(cut + 1)) <= MAX_LISTED_N ? cut : -1;
}

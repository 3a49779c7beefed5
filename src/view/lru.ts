/**
 * A least-recently-used set of held values with a cap, where some keys may be pinned (in use and
 * not to be released). Recency is the Map's insertion order, moved on every touch: deterministic,
 * with no clock. Releasing is the owner's job, through `release`, called once per evicted value.
 */
export class Lru<K, V> {
  readonly #held = new Map<K, V>();
  readonly #pins = new Map<K, number>();

  constructor(
    readonly cap: number,
    private readonly release: (key: K, value: V) => void,
  ) {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`an LRU cap must be a whole number ≥ 1 (got ${cap})`);
  }

  /** The value held for `key`, made the most recent; undefined when not held. */
  get(key: K): V | undefined {
    const value = this.#held.get(key);
    if (value === undefined) return undefined;
    this.#held.delete(key);
    this.#held.set(key, value);
    return value;
  }

  /** The value held for `key`, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.#held.get(key);
  }

  /** Holds `value` as the most recent, then evicts down to the cap. */
  set(key: K, value: V): void {
    const old = this.#held.get(key);
    this.#held.delete(key);
    this.#held.set(key, value);
    if (old !== undefined && old !== value) this.release(key, old);
    this.#trim();
  }

  /** Keeps `key` from eviction until as many `unpin` calls; pins nest. */
  pin(key: K): void {
    this.#pins.set(key, (this.#pins.get(key) ?? 0) + 1);
  }

  /** Undoes one `pin`; the cap applies again once nothing pins the key. */
  unpin(key: K): void {
    const n = (this.#pins.get(key) ?? 0) - 1;
    if (n > 0) this.#pins.set(key, n);
    else this.#pins.delete(key);
    this.#trim();
  }

  /** Held keys, least recent first. */
  keys(): K[] {
    return [...this.#held.keys()];
  }

  /** Pinned keys, sorted by first pin. */
  pinned(): K[] {
    return [...this.#pins.keys()];
  }

  get size(): number {
    return this.#held.size;
  }

  /** Releases every held value (closing the owner). */
  clear(): void {
    const all = [...this.#held];
    this.#held.clear();
    this.#pins.clear();
    for (const [k, v] of all) this.release(k, v);
  }

  // Pinned values may hold the count above the cap for as long as they are pinned. The most recent
  // is never released: it is the one just asked for, which its caller is about to use.
  #trim(): void {
    if (this.#held.size <= this.cap) return;
    const entries = [...this.#held];
    for (const [k, v] of entries.slice(0, -1)) {
      if (this.#held.size <= this.cap) break;
      if (this.#pins.has(k)) continue;
      this.#held.delete(k);
      this.release(k, v);
    }
  }
}

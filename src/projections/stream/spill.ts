// A sorted spill: items added in any order come back in sorted order, with only a bounded chunk of
// them in memory. A full chunk is sorted and written to a temp file (a "run") as lines; reading
// back merges the runs and the last chunk, holding one item per run. Synchronous file calls: it
// runs at the end of a run or in `evalog rebuild`, where nothing else waits on the event loop.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** How a spill sorts, bounds and writes its items. */
export interface SpillSpec<T> {
  /** Total order of the items; items that compare equal come back in the order they were added. */
  compare(a: T, b: T): number;
  /** The item as one line (no newline in it). */
  line(item: T): string;
  /** The item of a line `line` wrote. */
  parse(line: string): T;
  /** A chunk is written out once it holds this many items… */
  maxItems: number;
  /** …or this many characters of lines (the lines' length as `line` gives it, counted as added). */
  maxChars: number;
  /** Weight of an item against `maxChars`. */
  weight(item: T): number;
  /** Folder under which the runs' temp folder is made (default: the OS's). */
  root?: string;
}

/** An item with the order it was added in, so that equal items keep it across runs. */
interface Entry<T> {
  item: T;
  seq: number;
}

/** Items spilled to sorted runs on disk and merged back in order. */
export class SortedSpill<T> {
  #chunk: Entry<T>[] = [];
  #chars = 0;
  #seq = 0;
  #dir: string | null = null;
  readonly #runs: string[] = [];
  constructor(private readonly spec: SpillSpec<T>) {}

  /** How many sorted runs are on disk (for tests and the bench). */
  get runs(): number {
    return this.#runs.length;
  }

  add(item: T): void {
    this.#chunk.push({ item, seq: this.#seq++ });
    this.#chars += this.spec.weight(item);
    if (this.#chunk.length >= this.spec.maxItems || this.#chars >= this.spec.maxChars) this.#flush();
  }

  /** Every item added, in order; each call reads the runs afresh (the spill can be read more than once). */
  *sorted(): Generator<T> {
    const byOrder = (a: Entry<T>, b: Entry<T>) => this.spec.compare(a.item, b.item) || a.seq - b.seq;
    this.#chunk.sort(byOrder);
    if (this.#runs.length === 0) {
      for (const e of this.#chunk) yield e.item;
      return;
    }
    const sources: Source<T>[] = this.#runs.map((path) => new RunReader<T>(path, (l) => this.#parseEntry(l)));
    sources.push(new ChunkSource(this.#chunk));
    try {
      const heap = new Heap<{ entry: Entry<T>; source: Source<T> }>((a, b) => byOrder(a.entry, b.entry));
      for (const source of sources) {
        const entry = source.next();
        if (entry !== undefined) heap.push({ entry, source });
      }
      while (heap.size > 0) {
        const top = heap.peek()!;
        yield top.entry.item;
        const entry = top.source.next();
        if (entry === undefined) heap.pop();
        else heap.replaceTop({ entry, source: top.source });
      }
    } finally {
      for (const s of sources) s.close();
    }
  }

  /** Removes the runs from disk. */
  dispose(): void {
    if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true });
    this.#dir = null;
    this.#runs.length = 0;
    this.#chunk = [];
  }

  #flush(): void {
    this.#chunk.sort((a, b) => this.spec.compare(a.item, b.item) || a.seq - b.seq);
    this.#dir ??= mkdtempSync(join(this.spec.root ?? tmpdir(), 'evalog-spill-'));
    const path = join(this.#dir, `run-${this.#runs.length}.lines`);
    const fd = openSync(path, 'wx');
    try {
      let pending = '';
      for (const e of this.#chunk) {
        pending += `${e.seq}\t${this.spec.line(e.item)}\n`;
        if (pending.length >= 1 << 20) {
          writeSync(fd, pending);
          pending = '';
        }
      }
      if (pending.length > 0) writeSync(fd, pending);
    } finally {
      closeSync(fd);
    }
    this.#runs.push(path);
    this.#chunk = [];
    this.#chars = 0;
  }

  #parseEntry(line: string): Entry<T> {
    const tab = line.indexOf('\t');
    return { seq: Number(line.slice(0, tab)), item: this.spec.parse(line.slice(tab + 1)) };
  }
}

interface Source<T> {
  next(): Entry<T> | undefined;
  close(): void;
}

class ChunkSource<T> implements Source<T> {
  #i = 0;
  constructor(private readonly entries: readonly Entry<T>[]) {}
  next(): Entry<T> | undefined {
    return this.entries[this.#i++];
  }
  close(): void {}
}

const READ_BYTES = 64 * 1024;

/** One run's lines, read a block at a time. */
class RunReader<T> implements Source<T> {
  #fd: number | null;
  readonly #buf = Buffer.allocUnsafe(READ_BYTES);
  readonly #decoder = new StringDecoder('utf8');
  #text = '';
  #at = 0;
  constructor(
    path: string,
    private readonly parse: (line: string) => Entry<T>,
  ) {
    this.#fd = openSync(path, 'r');
  }

  next(): Entry<T> | undefined {
    for (;;) {
      const nl = this.#text.indexOf('\n', this.#at);
      if (nl >= 0) {
        const line = this.#text.slice(this.#at, nl);
        this.#at = nl + 1;
        return this.parse(line);
      }
      if (this.#fd === null) return undefined;
      const n = readSync(this.#fd, this.#buf, 0, READ_BYTES, null);
      this.#text = this.#text.slice(this.#at) + (n === 0 ? this.#decoder.end() : this.#decoder.write(this.#buf.subarray(0, n)));
      this.#at = 0;
      if (n === 0) this.close();
    }
  }

  close(): void {
    if (this.#fd !== null) closeSync(this.#fd);
    this.#fd = null;
  }
}

/** A binary min-heap. */
class Heap<T> {
  readonly #items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.#items.length;
  }
  peek(): T | undefined {
    return this.#items[0];
  }
  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.less(a[i]!, a[p]!) >= 0) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  pop(): void {
    const a = this.#items;
    const last = a.pop()!;
    if (a.length > 0) this.replaceTop(last);
  }
  replaceTop(item: T): void {
    const a = this.#items;
    a[0] = item;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.less(a[l]!, a[m]!) < 0) m = l;
      if (r < a.length && this.less(a[r]!, a[m]!) < 0) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
  }
}

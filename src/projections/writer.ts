import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { canonicalJson } from '../core/canonical.js';
import { UserError } from '../core/errors.js';

/** An output folder exists already; evalog never writes into one it did not create. */
export class OutputExistsError extends UserError {
  override name = 'OutputExistsError';
  constructor(readonly path: string) {
    super(`output folder ${path} exists already; choose a new --out (evalog never overwrites a run)`);
  }
}

/** Canonical JSON document: sorted keys, 2-space indent, trailing newline. */
export function jsonDocument(value: unknown): string {
  return `${canonicalJson(value, 2)}\n`;
}

/** Canonical JSON Lines: one sorted-key object per line. */
export function jsonLines(values: Iterable<unknown>): string {
  let out = '';
  for (const v of values) out += `${canonicalJson(v)}\n`;
  return out;
}

/**
 * The pieces of `canonicalJson(value, indent)`, in order: their concatenation is byte-identical
 * to it. Arrays and objects near the top are walked one member at a time, so a large document
 * (usage.json lists every call) is written without a sorted deep copy of it, or the whole text,
 * ever being in memory; deeper members are serialised whole.
 */
export function* canonicalJsonChunks(value: unknown, indent: number, depth = 0, streamDepth = 2): Generator<string> {
  const container = value !== null && typeof value === 'object' && (Array.isArray(value) || value instanceof LazyList || isPlainObject(value));
  if (!container || depth >= streamDepth) {
    const text = canonicalJson(value, indent);
    // Nested output is indented from column 0; JSON strings never hold a raw newline.
    yield depth === 0 || text === undefined ? text : text.replaceAll('\n', `\n${' '.repeat(indent * depth)}`);
    return;
  }
  const inner = `\n${' '.repeat(indent * (depth + 1))}`;
  const close = `\n${' '.repeat(indent * depth)}`;
  let first = true;
  if (Array.isArray(value) || value instanceof LazyList) {
    for (const v of value) {
      yield first ? `[${inner}` : `,${inner}`;
      first = false;
      let wrote = false;
      for (const c of canonicalJsonChunks(v, indent, depth + 1, streamDepth)) {
        if (c === undefined) continue;
        wrote = true;
        yield c;
      }
      if (!wrote) yield 'null'; // as JSON.stringify writes undefined and functions in arrays
    }
    yield first ? '[]' : `${close}]`;
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    // JSON.stringify leaves out members it cannot write (canonicalJson drops undefined ones).
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield `${first ? '{' : ','}${inner}${JSON.stringify(k)}: `;
    first = false;
    yield* canonicalJsonChunks(v, indent, depth + 1, streamDepth);
  }
  yield first ? '{}' : `${close}}`;
}

/**
 * A list a document holds near its top that is read only as it is written (usage.json's calls, read
 * back from a spill): `canonicalJsonChunks` writes it as the array of its items, made afresh each
 * time it is walked. Only for the streamed levels (above `streamDepth`); `canonicalJson` does not know it.
 */
export class LazyList implements Iterable<unknown> {
  constructor(private readonly items: () => Iterable<unknown>) {}
  [Symbol.iterator](): Iterator<unknown> {
    return this.items()[Symbol.iterator]();
  }
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** `jsonDocument` as pieces (see canonicalJsonChunks). */
export function* jsonDocumentChunks(value: unknown): Generator<string> {
  yield* canonicalJsonChunks(value, 2);
  yield '\n';
}

/** `jsonLines` as pieces, one line each. */
export function* jsonLineChunks(values: Iterable<unknown>): Generator<string> {
  for (const v of values) yield `${canonicalJson(v)}\n`;
}

const WRITE_BATCH_CHARS = 1 << 20;

/** A temp file of writeTemp's: `.<name>.<pid>.<uuid>.tmp`. */
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

/**
 * Removes the temp files of other processes from `dir` (not its subfolders): what a writer killed
 * mid-write left, up to a whole rows.jsonl each. Only for a folder this process alone writes now
 * (a run folder while it holds the run's writer lock), where another pid's temp file cannot be in
 * use.
 */
export async function removeStaleTemps(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = TEMP_NAME.exec(name);
    if (m !== null && Number(m[2]) !== process.pid) await rm(join(dir, name), { force: true });
  }
}

/** Writes content to a fresh, fsynced temp file beside `path` and returns the temp file's path. */
export async function writeTemp(path: string, content: string | Uint8Array | Iterable<string>, dirReady = false): Promise<string> {
  if (!dirReady) await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
  const fh = await open(tmp, 'wx');
  try {
    if (typeof content === 'string' || content instanceof Uint8Array) await fh.writeFile(content);
    else {
      // Pieces are gathered into writes of about a megabyte: bounded memory, few system calls.
      let pending = '';
      for (const piece of content) {
        pending += piece;
        if (pending.length >= WRITE_BATCH_CHARS) {
          await fh.write(pending);
          pending = '';
        }
      }
      if (pending.length > 0) await fh.write(pending);
    }
    await fh.sync();
  } catch (err) {
    await fh.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  return tmp;
}

/** Writes a file atomically: a temp file in the same folder, fsynced, then renamed over the target. */
export async function writeAtomic(path: string, content: string | Uint8Array | Iterable<string>, dirReady = false): Promise<void> {
  const tmp = await writeTemp(path, content, dirReady);
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Creates a new output folder; refuses one that exists (even empty) so no run is ever overwritten. */
export async function createOutputDir(path: string): Promise<void> {
  if (await exists(path)) throw new OutputExistsError(path);
  await mkdir(dirname(path), { recursive: true });
  try {
    await mkdir(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new OutputExistsError(path);
    throw err;
  }
}

/** True when the path exists. */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes many small files, each atomically as writeAtomic does (fsynced temp file, then rename),
 * `concurrency` at a time: one after the other, every file would wait for its own journal commit.
 * Folders are created once each, before the files.
 */
export async function writeAtomicAll(files: readonly { path: string; content: string | Uint8Array }[], concurrency = 32): Promise<void> {
  const dirs = [...new Set(files.map((f) => dirname(f.path)))].sort();
  for (const d of dirs) await mkdir(d, { recursive: true });
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const f = files[next++]!;
      await writeAtomic(f.path, f.content, true);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, lane));
}

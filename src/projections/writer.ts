import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { canonicalJson } from '../runtime/canonical.js';

/** An output folder exists already; evalog never writes into one it did not create. */
export class OutputExistsError extends Error {
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

/** Writes content to a fresh, fsynced temp file beside `path` and returns the temp file's path. */
export async function writeTemp(path: string, content: string | Uint8Array): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomUUID()}.tmp`);
  const fh = await open(tmp, 'wx');
  try {
    await fh.writeFile(content);
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
export async function writeAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const tmp = await writeTemp(path, content);
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

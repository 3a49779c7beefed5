// Content-addressed blobs beside a run's log: `blobs/<first-2-hex>/<sha256>`.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BlobNotFoundError, LogCorruptedError } from '../errors.js';
import type { BlobStore } from '../types.js';
import { ReadOnlyLogError } from './errors.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A BlobStore in one folder; writes go to a temp file then rename, so a blob is whole or absent. */
export class FileBlobStore implements BlobStore {
  // What this process already knows is on disk, so a repeated message (a system prompt, a long
  // history) costs a hash, not a stat, and a new blob skips the mkdir of a folder made before.
  readonly #stored = new Set<string>();
  readonly #folders = new Set<string>();

  /** `readOnly`: puts are refused (a replay writes nothing). */
  constructor(
    readonly dir: string,
    readonly readOnly = false,
  ) {}

  /** Path of the blob with this hash (which must already be checked). */
  pathOf(hash: string): string {
    return join(this.dir, hash.slice(0, 2), hash);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const path = this.pathOf(hash);
    if (this.#stored.has(hash)) return hash;
    if (this.readOnly) throw new ReadOnlyLogError(path, 'blob write');
    if (await this.has(hash)) return this.#remember(hash);
    const folder = dirname(path);
    if (!this.#folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      this.#folders.add(folder);
    }
    const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    try {
      const fh = await open(temp, 'wx');
      try {
        await fh.writeFile(bytes);
        // The event that references this blob is made durable later; the blob must be first.
        await fh.datasync();
      } finally {
        await fh.close();
      }
      await rename(temp, path); // same bytes under the same name, so a concurrent put is harmless
      await syncDir(folder);
    } catch (e) {
      await unlink(temp).catch(() => undefined);
      throw e;
    }
    return this.#remember(hash);
  }

  #remember(hash: string): string {
    this.#stored.add(hash);
    return hash;
  }

  async get(hash: string): Promise<Uint8Array> {
    if (!SHA256_HEX.test(hash)) throw new BlobNotFoundError(hash);
    const path = this.pathOf(hash);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(hash);
      throw e;
    }
    if (createHash('sha256').update(bytes).digest('hex') !== hash) {
      throw new LogCorruptedError(`${path}: blob content does not match its sha256`, path, 0);
    }
    return bytes;
  }

  async has(hash: string): Promise<boolean> {
    if (!SHA256_HEX.test(hash)) return false;
    try {
      await stat(this.pathOf(hash));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  }
}

/** Makes a rename or create in `dir` durable; some platforms cannot fsync a folder, which is harmless. */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // EISDIR/EPERM on platforms without directory fsync: nothing more can be done there.
  } finally {
    await fh?.close();
  }
}

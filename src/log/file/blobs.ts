// Content-addressed blobs beside a run's log: packed in `blobs.pack` (see blob-pack.ts), or, for
// blobs too large for a frame and for runs written before the pack, one file each at
// `blobs/<first-2-hex>/<sha256>`. Reads look in the pack first, then for a loose file.
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { BlobNotFoundError, LogCorruptedError } from '../errors.js';
import type { BlobStore } from '../types.js';
import { BlobPack, MAX_PACKED_BYTES } from './blob-pack.js';
import { ReadOnlyLogError } from './errors.js';
import { writeWhole } from './durable.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Where a run's blobs live, and how the store may start writing them. */
export interface BlobStoreOptions {
  /** Folder of loose blob files. */
  dir: string;
  /** The pack file. */
  pack: string;
  /** Puts are refused (a replay writes nothing); default false. */
  readOnly?: boolean;
  /** Takes the run's writer lock before the first put (only the lock holder appends to the pack). */
  claimWriter?: () => Promise<void>;
  onWarning?: (message: string) => void;
}

/** A run's BlobStore: a blob is whole or absent, and durable before `put` resolves. */
export class FileBlobStore implements BlobStore {
  // What this process already knows is stored, so a repeated message (a system prompt, a long
  // history) costs a hash and nothing else.
  readonly #stored = new Set<string>();
  readonly #pack: BlobPack;
  #writing: Promise<void> | undefined;

  constructor(readonly options: BlobStoreOptions) {
    this.#pack = new BlobPack(options.pack);
  }

  /** Path of the loose file of the blob with this hash (which must already be checked). */
  pathOf(hash: string): string {
    return join(this.options.dir, hash.slice(0, 2), hash);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = createHash('sha256').update(bytes).digest('hex');
    if (this.#stored.has(hash)) return hash;
    if (this.options.readOnly) throw new ReadOnlyLogError(this.options.pack, 'blob write');
    if (bytes.length > MAX_PACKED_BYTES) {
      await putLoose(this.pathOf(hash), bytes);
    } else {
      this.#writing ??= this.#openForWrite();
      await this.#writing;
      // A loose copy of an older run's blob is not looked for: a second copy in the pack is harmless.
      await this.#pack.append(hash, bytes);
    }
    this.#stored.add(hash);
    return hash;
  }

  #openForWrite(): Promise<void> {
    const opening = (this.options.claimWriter?.() ?? Promise.resolve()).then(() =>
      this.#pack.openForWrite(this.options.onWarning ?? ((m) => process.stderr.write(`evalog: warning: ${m}\n`))),
    );
    // A failed open (locked, not writable) is not remembered: the next put tries again.
    opening.catch(() => {
      this.#writing = undefined;
    });
    return opening;
  }

  async get(hash: string): Promise<Uint8Array> {
    if (!SHA256_HEX.test(hash)) throw new BlobNotFoundError(hash);
    const entry = await this.#pack.find(hash);
    if (entry) return this.#pack.read(hash, entry);
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
    if (this.#stored.has(hash) || (await this.#pack.find(hash))) return true;
    try {
      await stat(this.pathOf(hash));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  }

  /** Waits for blobs being committed and closes the pack. */
  close(): Promise<void> {
    return this.#pack.close();
  }
}

/** One blob in a file of its own (the event that references it is made durable later; the blob is first). */
async function putLoose(path: string, bytes: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeWhole(path, bytes);
}

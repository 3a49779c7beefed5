// A run's content-addressed blobs in one append-only file, `log/blobs.pack`, in the event log's
// frame format (u32 length, u32 crc32, payload) with a payload of the 32-byte sha256 then the
// bytes. A file per blob cost ten file-system calls and two fsyncs per new request message; here
// a batch of puts is one write and one fdatasync (group commit, as the event log does).
import { open, type FileHandle } from 'node:fs/promises';
import { sha256 } from '../../core/canonical.js';
import { LogCorruptedError } from '../errors.js';
import { LogWriteError } from './errors.js';
import { writeDurably, writeWhole } from './durable.js';
import { crc32, FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES, plausibleLength } from './format.js';
import { keepTail } from './recover.js';
import { CHUNK_BYTES, findFrameAfter } from './scan.js';

/** Bytes a pack starts with: "EVBLOB", then the u16 LE pack format version. */
export const PACK_MAGIC = Buffer.from('EVBLOB', 'latin1');
const PACK_VERSION = 1;
const PACK_HEADER_BYTES = PACK_MAGIC.length + 2;
const HASH_BYTES = 32;
/** Blobs larger than this do not fit a frame; the store keeps them as loose files instead. */
export const MAX_PACKED_BYTES = MAX_PAYLOAD_BYTES - HASH_BYTES;

// Reads go through the pack's 4 KB blocks, the last 256 read kept in memory (1 MB at most): a run's
// end derives its rows from every job's request blob, small blobs read in job-id order, which is
// not the order they were written in (plans are shuffled). A read call per blob was 3 % of a
// 10 000-case run's CPU; through the blocks, 10 000 blobs took 242 reads. Each blob's bytes are
// checked by its sha256, and bytes that fail it are read again from the file before they count as
// damage, so a block read before another process cut and rewrote the pack's tail is never trusted.
const BLOCK_BYTES = 4096;
const BLOCKS_KEPT = 256;

/** Where one blob's bytes are in the pack; `damaged` when its frame fails its CRC. */
export interface PackEntry {
  offset: number;
  length: number;
  damaged: boolean;
}

function packHeader(): Buffer {
  const header = Buffer.alloc(PACK_HEADER_BYTES);
  PACK_MAGIC.copy(header, 0);
  header.writeUInt16LE(PACK_VERSION, PACK_MAGIC.length);
  return header;
}

/**
 * One pack, for reading and (once `openForWrite` has run, under the run's writer lock) appending.
 * A bad frame with a whole frame after it is damage, indexed so that `read` names that blob; a bad
 * frame at the end may be a write in progress or a torn tail, so a reader stops before it and looks
 * again later, and the writer cuts it (keeping the cut bytes beside the pack, as the log does).
 */
export class BlobPack {
  readonly #index = new Map<string, PackEntry>();
  #fh: FileHandle | undefined;
  /** Bytes indexed so far: the offset of the next frame. */
  #end = 0;
  #writable = false;
  #pending: { hash: string; frame: Buffer }[] = [];
  readonly #committing = new Map<string, Promise<void>>();
  #flush: Promise<void> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #failed: Error | undefined;
  #refreshing: Promise<number> | undefined;
  /** Recently read blocks of the pack by block number, least recently used first. */
  readonly #blocks = new Map<number, Promise<Buffer>>();

  constructor(readonly file: string) {}

  /** Where the blob is, indexing frames appended by another process since the last look. */
  async find(hash: string): Promise<PackEntry | undefined> {
    const known = this.#index.get(hash);
    if (known || this.#writable) return known;
    await this.#refresh();
    return this.#index.get(hash);
  }

  /** The bytes of a found blob, checked against its sha256. */
  async read(hash: string, entry: PackEntry): Promise<Buffer> {
    // Whatever goes wrong through the blocks (a failed read, stale bytes), the file itself decides.
    const cached = entry.damaged ? undefined : await this.#fromBlock(entry).catch(() => undefined);
    if (cached && sha256(cached) === hash) return cached;
    const bytes = Buffer.allocUnsafe(entry.length);
    const { bytesRead } = await this.#fh!.read(bytes, 0, entry.length, entry.offset);
    if (entry.damaged || bytesRead !== entry.length || sha256(bytes) !== hash) {
      const frame = entry.offset - HASH_BYTES - FRAME_HEADER_BYTES;
      throw new LogCorruptedError(`${this.file}: blob ${hash} (frame at byte ${frame}) does not match its sha256`, this.file, frame);
    }
    return bytes;
  }

  /** A copy of the entry's bytes from its block, read if not kept; undefined when it spans blocks. */
  async #fromBlock(entry: PackEntry): Promise<Buffer | undefined> {
    const n = Math.floor(entry.offset / BLOCK_BYTES);
    const start = entry.offset - n * BLOCK_BYTES;
    const end = start + entry.length;
    if (end > BLOCK_BYTES) return undefined;
    let block = this.#blocks.get(n);
    // Reads of one block share its one read, also while it is in flight (blobs are read 32 at a time).
    if (!block || (await block).length < end) block = this.#readBlock(n);
    this.#blocks.delete(n);
    this.#blocks.set(n, block);
    if (this.#blocks.size > BLOCKS_KEPT) this.#blocks.delete(this.#blocks.keys().next().value!);
    const bytes = await block;
    // A copy: a caller keeping a blob must not keep its whole block alive.
    return bytes.length < end ? undefined : Buffer.from(bytes.subarray(start, end));
  }

  #readBlock(n: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(BLOCK_BYTES);
    const read = this.#fh!.read(buf, 0, BLOCK_BYTES, n * BLOCK_BYTES).then(({ bytesRead }) => buf.subarray(0, bytesRead));
    // A failed read is not kept: the next read of the block tries the file again.
    read.catch(() => this.#blocks.get(n) === read && this.#blocks.delete(n));
    return read;
  }

  /** Opens the pack for appending (creating it whole), indexes it and cuts a torn tail; once. */
  async openForWrite(onWarning: (message: string) => void): Promise<void> {
    if (this.#writable) return;
    await this.#refreshing?.catch(() => undefined);
    await this.#fh?.close(); // a handle opened for reading cannot write
    this.#fh = await open(this.file, 'r+').catch(async (e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
      await writeWhole(this.file, packHeader()); // whole or absent: a reader never meets a short header
      return open(this.file, 'r+');
    });
    const size = await this.#refresh();
    if (this.#end < size) {
      const kept = await keepTail(this.#fh, this.file, this.#end, size);
      onWarning(`${this.file}: cut a torn tail of ${size - this.#end} bytes at byte ${this.#end} (blobs a crash cut short); the cut bytes are kept in ${kept}`);
      await this.#fh.truncate(this.#end);
      await this.#fh.datasync();
    }
    this.#blocks.clear(); // read through the handle closed above, or before the cut
    this.#writable = true;
  }

  /** Appends a blob unless the pack holds it; resolves once it is durable (before any event names it). */
  append(hash: string, bytes: Uint8Array): Promise<void> {
    if (this.#index.get(hash)?.damaged === false) return Promise.resolve(); // a damaged copy gets a whole one
    const committing = this.#committing.get(hash);
    if (committing) return committing;
    if (this.#failed) return Promise.reject(this.#failed);
    // The frame is built in place (header, hash, bytes): one copy of the blob, not two.
    const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + HASH_BYTES + bytes.length);
    frame.write(hash, FRAME_HEADER_BYTES, 'hex');
    frame.set(bytes, FRAME_HEADER_BYTES + HASH_BYTES);
    frame.writeUInt32LE(HASH_BYTES + bytes.length, 0);
    frame.writeUInt32LE(crc32(frame.subarray(FRAME_HEADER_BYTES)), 4);
    this.#pending.push({ hash, frame });
    if (!this.#flush) {
      // Every put of this turn of the event loop joins the batch; batches commit one after another.
      this.#flush = this.#chain.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => this.#commit());
      this.#chain = this.#flush.catch(() => undefined);
    }
    this.#committing.set(hash, this.#flush);
    return this.#flush;
  }

  /** Writes the pending frames at once and fdatasyncs; puts arriving meanwhile form the next batch. */
  async #commit(): Promise<void> {
    const batch = this.#pending;
    this.#pending = [];
    this.#flush = undefined;
    if (this.#failed) throw this.#failed;
    const buf = batch.length === 1 ? batch[0]!.frame : Buffer.concat(batch.map((b) => b.frame));
    const at = this.#end;
    try {
      await writeDurably(this.#fh!.fd, buf, at);
    } catch (cause) {
      // After a failed write or fsync the page cache cannot be trusted: the pack takes no more blobs.
      this.#failed = new LogWriteError(this.file, { cause });
      for (const b of batch) this.#committing.delete(b.hash);
      await this.#fh!.truncate(at).catch(() => undefined);
      this.#blocks.clear();
      throw this.#failed;
    }
    let offset = at;
    for (const { hash, frame } of batch) {
      this.#index.set(hash, { offset: offset + FRAME_HEADER_BYTES + HASH_BYTES, length: frame.length - FRAME_HEADER_BYTES - HASH_BYTES, damaged: false });
      this.#committing.delete(hash);
      offset += frame.length;
    }
    this.#end = offset;
  }

  /**
   * Indexes whole frames from where the last look stopped; returns the file's size. Concurrent
   * lookups (blobs are read many at a time) share one look, and so one file handle.
   */
  #refresh(): Promise<number> {
    this.#refreshing ??= this.#look().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #look(): Promise<number> {
    if (!this.#fh) {
      const fh = await open(this.file, 'r').catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return undefined;
        throw e;
      });
      if (!fh) return 0;
      this.#fh = fh;
    }
    const fh = this.#fh;
    const size = (await fh.stat()).size;
    if (this.#end === 0) {
      // The pack is created whole (temp file, rename), so a short or foreign header is damage.
      const header = Buffer.alloc(PACK_HEADER_BYTES);
      await fh.read(header, 0, PACK_HEADER_BYTES, 0);
      if (!header.equals(packHeader())) throw new LogCorruptedError(`${this.file}: not an evalog blob pack (bad header at byte 0)`, this.file, 0);
      this.#end = PACK_HEADER_BYTES;
    }
    for (;;) {
      const frames = await this.#nextFrames(fh, size);
      if (frames === 0) return size;
    }
  }

  /** Indexes the frames of one chunk read at `#end`; returns how many it indexed or skipped. */
  async #nextFrames(fh: FileHandle, size: number): Promise<number> {
    if (this.#end + FRAME_HEADER_BYTES > size) return 0;
    const head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
    await fh.read(head, 0, FRAME_HEADER_BYTES, this.#end);
    // A chunk holds at least the first frame whole, however large.
    const want = Math.min(size - this.#end, Math.max(CHUNK_BYTES, FRAME_HEADER_BYTES + Math.min(head.readUInt32LE(0), MAX_PAYLOAD_BYTES)));
    const chunk = Buffer.allocUnsafe(want);
    const got = (await fh.read(chunk, 0, want, this.#end)).bytesRead;
    let at = 0;
    let count = 0;
    while (at + FRAME_HEADER_BYTES <= got) {
      const start = this.#end + at;
      const length = chunk.readUInt32LE(at);
      const whole = plausibleLength(length) && length >= HASH_BYTES && start + FRAME_HEADER_BYTES + length <= size;
      if (whole && at + FRAME_HEADER_BYTES + length > got) break; // goes on past this chunk: the next one starts with it
      const payload = whole ? chunk.subarray(at + FRAME_HEADER_BYTES, at + FRAME_HEADER_BYTES + length) : undefined;
      if (payload && crc32(payload) === chunk.readUInt32LE(at + 4)) {
        this.#note(payload, start, false);
        at += FRAME_HEADER_BYTES + length;
        count += 1;
        continue;
      }
      // A bad frame: damage if a whole frame follows, else the end (a write in progress or a torn tail).
      const next = await findFrameAfter(fh, start, size);
      if (next === null) break;
      // Its hash is trusted only where its length leads straight to the next whole frame.
      if (payload && next === start + FRAME_HEADER_BYTES + length) this.#note(payload, start, true);
      this.#end = next;
      return count + 1;
    }
    this.#end += at;
    return count;
  }

  #note(payload: Buffer, frameAt: number, damaged: boolean): void {
    const hash = payload.subarray(0, HASH_BYTES).toString('hex');
    const known = this.#index.get(hash);
    // The first whole copy of a blob wins; a damaged copy never hides a whole one.
    if (known && !known.damaged) return;
    this.#index.set(hash, { offset: frameAt + FRAME_HEADER_BYTES + HASH_BYTES, length: payload.length - HASH_BYTES, damaged });
  }

  /** Waits for pending blobs, then closes the file. */
  async close(): Promise<void> {
    await this.#chain;
    await this.#refreshing?.catch(() => undefined);
    await this.#fh?.close();
    this.#fh = undefined;
    this.#end = 0;
    this.#index.clear();
    this.#blocks.clear();
    this.#writable = false;
  }
}

// Forward, chunked reading of whole frames. Shared by readers and by the writer's recovery, so
// both agree on where the last whole frame ends and on what counts as damage.
import type { FileHandle } from 'node:fs/promises';
import { LogCorruptedError } from '../errors.js';
import { crc32, FRAME_HEADER_BYTES, plausibleLength } from './format.js';

/** One whole frame: where it starts and its payload (valid until the consumer asks for the next). */
export interface Frame {
  offset: number;
  payload: Buffer;
}

/** Bytes read at a time: big enough that a read serves hundreds of frames, small enough to stay flat in memory. */
export const CHUNK_BYTES = 1024 * 1024;

/** Whole frames of one buffered chunk: frame i starts at file byte offsets[i] and holds lengths[i] bytes of payload. */
export class FrameBatch {
  readonly offsets: number[] = [];
  readonly lengths: number[] = [];
  /** The chunk the frames are in: the file's bytes from byte `bufStart` on (set when the batch is handed out). */
  buf: Buffer = Buffer.alloc(0);
  bufStart = 0;

  /** The payload of frame i (a view into the chunk). */
  payload(i: number): Buffer {
    const start = this.offsets[i]! - this.bufStart + FRAME_HEADER_BYTES;
    return this.buf.subarray(start, start + this.lengths[i]!);
  }
}

/** Reads frames of one file from a byte offset, never holding more than a chunk (or one frame). */
export class FrameScanner {
  #buf = Buffer.alloc(0);
  #bufStart = 0;

  /** `offset` is where the next frame starts; it stays at a bad or partial frame. */
  constructor(
    private readonly fh: FileHandle,
    readonly file: string,
    public offset: number,
  ) {}

  /**
   * Yields every whole frame before `limit`. At a bad frame it throws LogCorruptedError when
   * valid frames follow (damage in the middle) or when it is a whole last frame whose CRC fails,
   * and otherwise stops there: the tail is torn or still being written, which only the writer may
   * cut back.
   */
  async *frames(limit: number): AsyncGenerator<Frame> {
    for await (const batch of this.batches(limit)) {
      for (let i = 0; i < batch.offsets.length; i += 1) yield { offset: batch.offsets[i]!, payload: batch.payload(i) };
    }
  }

  /**
   * The frames of `frames`, a buffered chunk at a time (the consumer loops over each batch without
   * an await per frame). `offset` is past a batch once it is yielded. A batch is plain offsets into
   * the chunk, no object per frame: a rebuild's batches live across many events, and per-frame
   * objects would outlive the young generation only to become old garbage.
   */
  async *batches(limit: number): AsyncGenerator<FrameBatch> {
    // Bytes buffered past the last whole frame may since have been cut back and rewritten.
    this.#buf = Buffer.alloc(0);
    for (;;) {
      const batch = new FrameBatch();
      let stop: string | null = null;
      while (this.offset + FRAME_HEADER_BYTES <= limit) {
        // Only an empty batch reads more: a batch ends where the buffered bytes do.
        if (!this.#covers(FRAME_HEADER_BYTES) && (batch.offsets.length > 0 || !(await this.#ensure(FRAME_HEADER_BYTES, limit)))) break;
        const at = this.offset - this.#bufStart;
        const length = this.#buf.readUInt32LE(at);
        const crc = this.#buf.readUInt32LE(at + 4);
        const end = this.offset + FRAME_HEADER_BYTES + length;
        if (!plausibleLength(length) || end > limit) {
          stop = length === 0 ? 'zero length' : `length ${length} runs past byte ${limit}`;
          break;
        }
        if (!this.#covers(FRAME_HEADER_BYTES + length) && (batch.offsets.length > 0 || !(await this.#ensure(FRAME_HEADER_BYTES + length, limit)))) break;
        const start = this.offset - this.#bufStart + FRAME_HEADER_BYTES;
        if (crc32(this.#buf.subarray(start, start + length)) !== crc) {
          stop = 'crc mismatch';
          break;
        }
        batch.offsets.push(this.offset);
        batch.lengths.push(length);
        this.offset = end;
      }
      if (batch.offsets.length > 0) {
        // A batch never spans two chunks: it reads more only while it is empty.
        batch.buf = this.#buf;
        batch.bufStart = this.#bufStart;
        yield batch;
        continue; // the next batch starts where this one stopped (and meets the same bad frame, if any)
      }
      if (stop !== null) await this.#stopAt(limit, stop);
      return;
    }
  }

  async #stopAt(limit: number, why: string): Promise<void> {
    const next = await findFrameAfter(this.fh, this.offset, limit);
    // A recovering writer may have cut a torn tail and written whole frames since we looked.
    if (await frameIsWhole(this.fh, this.offset, limit)) return;
    if (next !== null) {
      throw new LogCorruptedError(
        `${this.file}: damaged frame at byte ${this.offset} (${why}); a valid frame follows at byte ${next}, so this is not a torn tail`,
        this.file,
        this.offset,
      );
    }
    // A crash leaves a frame short (its length runs past the end) or unwritten (zeros); a last
    // frame that is all there but fails its CRC was written whole and damaged since.
    if (await lastFrameDamaged(this.fh, this.offset, limit)) {
      throw new LogCorruptedError(
        `${this.file}: damaged frame at byte ${this.offset} (crc mismatch); it is the last frame and whole, so this is damage, not a torn tail`,
        this.file,
        this.offset,
      );
    }
  }

  /** Whether the buffer covers [offset, offset + n). */
  #covers(n: number): boolean {
    const rel = this.offset - this.#bufStart;
    return rel >= 0 && rel + n <= this.#buf.length;
  }

  /** Makes the buffer cover [offset, offset + n); false when the file is shorter (it shrank). */
  async #ensure(n: number, limit: number): Promise<boolean> {
    if (this.#covers(n)) return true;
    // A fresh buffer rather than a reused one: payloads handed out earlier stay intact.
    const size = Math.min(Math.max(n, CHUNK_BYTES), limit - this.offset);
    const buf = Buffer.allocUnsafe(size);
    const { bytesRead } = await this.fh.read(buf, 0, size, this.offset);
    this.#buf = buf.subarray(0, bytesRead);
    this.#bufStart = this.offset;
    return bytesRead >= n;
  }
}

async function frameIsWhole(fh: FileHandle, at: number, limit: number): Promise<boolean> {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  if ((await fh.read(header, 0, FRAME_HEADER_BYTES, at)).bytesRead < FRAME_HEADER_BYTES) return false;
  return checkFrame(fh, at, header.readUInt32LE(0), header.readUInt32LE(4), limit);
}

/** Bytes of zeros a frame must end in to count as never written rather than damaged. */
const UNWRITTEN_BYTES = 16;

/**
 * Whether the frame at `at` has its whole length before `limit` but a failing CRC, and does not
 * end in zeros (space a crash allocated but never filled, as in a torn write).
 */
async function lastFrameDamaged(fh: FileHandle, at: number, limit: number): Promise<boolean> {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  if ((await fh.read(header, 0, FRAME_HEADER_BYTES, at)).bytesRead < FRAME_HEADER_BYTES) return false;
  const length = header.readUInt32LE(0);
  if (!plausibleLength(length) || at + FRAME_HEADER_BYTES + length > limit) return false;
  const n = Math.min(UNWRITTEN_BYTES, length);
  const end = Buffer.alloc(n);
  await fh.read(end, 0, n, at + FRAME_HEADER_BYTES + length - n);
  return !(n === UNWRITTEN_BYTES && end.every((b) => b === 0));
}

async function checkFrame(fh: FileHandle, at: number, length: number, crc: number, limit: number): Promise<boolean> {
  if (!plausibleLength(length) || at + FRAME_HEADER_BYTES + length > limit) return false;
  const payload = Buffer.allocUnsafe(length);
  const { bytesRead } = await fh.read(payload, 0, length, at + FRAME_HEADER_BYTES);
  return bytesRead === length && crc32(payload) === crc;
}

/**
 * Offset of the first whole, CRC-valid frame starting after `from` and ending by `limit`, or null.
 * Tells mid-file damage (valid data follows) from a torn tail (nothing valid follows).
 */
export async function findFrameAfter(fh: FileHandle, from: number, limit: number): Promise<number | null> {
  const header = Buffer.alloc(FRAME_HEADER_BYTES);
  const checks = (at: number, length: number, crc: number) => checkFrame(fh, at, length, crc, limit);
  // Fast path: a damaged payload with an intact length leaves the next frame where it was.
  if ((await fh.read(header, 0, FRAME_HEADER_BYTES, from)).bytesRead === FRAME_HEADER_BYTES) {
    const next = from + FRAME_HEADER_BYTES + header.readUInt32LE(0);
    if (plausibleLength(header.readUInt32LE(0)) && next + FRAME_HEADER_BYTES <= limit) {
      const got = await fh.read(header, 0, FRAME_HEADER_BYTES, next);
      if (got.bytesRead === FRAME_HEADER_BYTES && (await checks(next, header.readUInt32LE(0), header.readUInt32LE(4)))) return next;
    }
  }
  // Otherwise try every byte position, a chunk at a time (chunks overlap by a frame header).
  for (let base = from + 1; base + FRAME_HEADER_BYTES <= limit; base += CHUNK_BYTES) {
    const size = Math.min(CHUNK_BYTES + FRAME_HEADER_BYTES - 1, limit - base);
    const chunk = Buffer.allocUnsafe(size);
    const { bytesRead } = await fh.read(chunk, 0, size, base);
    for (let i = 0; i + FRAME_HEADER_BYTES <= bytesRead && i < CHUNK_BYTES; i += 1) {
      const length = chunk.readUInt32LE(i);
      // Most positions fail on the length alone; only plausible ones cost a read and a CRC.
      if (!plausibleLength(length) || base + i + FRAME_HEADER_BYTES + length > limit) continue;
      if (await checks(base + i, length, chunk.readUInt32LE(i + 4))) return base + i;
    }
  }
  return null;
}

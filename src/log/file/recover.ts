// Opening a run's log for writing: create it whole, or scan it, index ids and cut a torn tail.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { decodeEvent } from '../../events/index.js';
import { EventIdIndex } from '../id-index.js';
import { writeWhole } from './durable.js';
import { checkHeader, fileHeader, HEADER_BYTES } from './format.js';
import { FrameScanner } from './scan.js';

/** Every how many frames the writer remembers an offset, so reads from the middle skip ahead. */
export const CHECKPOINT_EVERY = 1024;

/** A log file ready for appending. */
export interface RecoveredLog {
  fh: FileHandle;
  /** Byte size of the whole frames (where the next frame goes). */
  size: number;
  /** Event id → seq of every stored event. */
  ids: EventIdIndex;
  /** Job id ('' for run-level events) → seq of its last stored event, for fenced appends. */
  lastByScope: Map<string, number>;
  /** checkpoints[k] = byte offset of the frame with seq k * CHECKPOINT_EVERY + 1. */
  checkpoints: number[];
}

/** Opens (creating if needed) a log file whose writer lock is held, and recovers its tail. */
export async function openForWrite(file: string, onWarning: (message: string) => void): Promise<RecoveredLog> {
  let fh = await open(file, 'r+').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (fh === null) {
    await createWhole(file);
    fh = await open(file, 'r+');
  }
  try {
    return await recover(fh, file, onWarning);
  } catch (e) {
    await fh.close();
    throw e;
  }
}

/** Temp + rename: readers and runs() never see a log file without its header. */
function createWhole(file: string): Promise<void> {
  return writeWhole(file, fileHeader());
}

async function recover(fh: FileHandle, file: string, onWarning: (message: string) => void): Promise<RecoveredLog> {
  const { size } = await fh.stat();
  const header = Buffer.alloc(HEADER_BYTES);
  await fh.read(header, 0, HEADER_BYTES, 0);
  if (size < HEADER_BYTES && fileHeader().subarray(0, size).equals(header.subarray(0, size))) {
    // Only a log created by other means can be this short; the header is all it could hold.
    onWarning(`${file}: header was cut short at ${size} bytes; rewrote it`);
    await fh.write(fileHeader(), 0, HEADER_BYTES, 0);
    await fh.datasync();
    return { fh, size: HEADER_BYTES, ids: new EventIdIndex(), lastByScope: new Map(), checkpoints: [] };
  }
  checkHeader(header, file);
  const ids = new EventIdIndex();
  const lastByScope = new Map<string, number>();
  const checkpoints: number[] = [];
  const scanner = new FrameScanner(fh, file, HEADER_BYTES);
  let seq = 0;
  for await (const frame of scanner.frames(size)) {
    if (seq % CHECKPOINT_EVERY === 0) checkpoints.push(frame.offset);
    seq += 1;
    const e = decodeEvent(frame.payload, `${file} at byte ${frame.offset}`);
    ids.set(e.id, seq);
    lastByScope.set(e.jobId ?? '', seq);
  }
  if (scanner.offset < size) {
    // Nothing is ever deleted: the cut bytes are kept beside the log before the file is cut.
    const kept = await keepTail(fh, file, scanner.offset, size);
    onWarning(
      `${file}: cut a torn tail of ${size - scanner.offset} bytes at byte ${scanner.offset} (end of the last whole frame, event ${seq}); the cut bytes are kept in ${kept}`,
    );
    await fh.truncate(scanner.offset);
    await fh.datasync();
  }
  return { fh, size: scanner.offset, ids, lastByScope, checkpoints };
}

/** Copies bytes [from, size) of the log to `<file>.cut-<from>` (durably, whole or absent); returns its path. */
export async function keepTail(fh: FileHandle, file: string, from: number, size: number): Promise<string> {
  const bytes = Buffer.alloc(size - from);
  await fh.read(bytes, 0, bytes.length, from);
  // A second crash may tear a tail at the same offset: an existing copy with other bytes stays.
  for (let n = 1; ; n += 1) {
    const path = n === 1 ? `${file}.cut-${from}` : `${file}.cut-${from}.${n}`;
    const existing = await readFile(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (existing?.equals(bytes)) return path;
    if (existing) continue;
    await writeWhole(path, bytes);
    return path;
  }
}

// Reaching into a run's blob pack (log/blobs.pack) the way damage would: tests that lose or edit
// one blob, as they once deleted or edited its file.
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from '../../src/log/file/format.js';

const HEADER = 8; // "EVBLOB" + u16 version
const FRAME = 8; // u32 length + u32 crc32

/** One frame of a pack: where it starts, the blob's hash and where its bytes are. */
export interface PackFrame {
  offset: number;
  hash: string;
  start: number;
  end: number;
}

/** Every frame of a pack, in file order (the pack must be whole). */
export async function packFrames(pack: string): Promise<PackFrame[]> {
  const bytes = await readFile(pack);
  const frames: PackFrame[] = [];
  for (let at = HEADER; at < bytes.length; ) {
    const length = bytes.readUInt32LE(at);
    frames.push({ offset: at, hash: bytes.subarray(at + FRAME, at + FRAME + 32).toString('hex'), start: at + FRAME + 32, end: at + FRAME + length });
    at += FRAME + length;
  }
  return frames;
}

/** The hashes of the blobs a pack holds, sorted. */
export async function packedHashes(logDir: string): Promise<string[]> {
  return (await packFrames(join(logDir, 'blobs.pack'))).map((f) => f.hash).sort();
}

/** Removes one blob from a run's pack, as if it had never been written (the pack is rewritten whole). */
export async function removeBlob(logDir: string, hash: string): Promise<void> {
  const pack = join(logDir, 'blobs.pack');
  const bytes = await readFile(pack);
  const frame = (await packFrames(pack)).find((f) => f.hash === hash);
  if (!frame) {
    await unlink(join(logDir, 'blobs', hash.slice(0, 2), hash)); // an older run's loose blob
    return;
  }
  await writeFile(`${pack}.edit`, Buffer.concat([bytes.subarray(0, frame.offset), bytes.subarray(frame.end)]));
  await rename(`${pack}.edit`, pack);
}

/**
 * Edits one byte of a blob in a run's pack and mends its frame's CRC, as an edit of the blob would
 * leave it: only the blob's sha256 can tell.
 */
export async function alterBlob(logDir: string, hash: string): Promise<void> {
  const pack = join(logDir, 'blobs.pack');
  const bytes = await readFile(pack);
  const frame = (await packFrames(pack)).find((f) => f.hash === hash);
  if (!frame) throw new Error(`blob ${hash} is not in ${pack}`);
  if (frame.end === frame.start) throw new Error(`blob ${hash} is empty: nothing to alter`);
  bytes[frame.end - 1]! ^= 0x01;
  bytes.writeUInt32LE(crc32(bytes.subarray(frame.offset + FRAME, frame.end)), frame.offset + 4);
  await writeFile(pack, bytes);
}

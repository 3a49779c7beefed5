// The on-disk format of the embedded log: a short header, then length-prefixed frames with a CRC.
import zlib from 'node:zlib';
import { LogCorruptedError } from '../errors.js';

/** Bytes every events.evlog starts with: "EVLOG", NUL, then the u16 LE format version. */
export const MAGIC = Buffer.from('EVLOG\0', 'latin1');
/** Version of the frame format written by this evalog. */
export const FORMAT_VERSION = 1;
/** Size of the file header (magic + version). */
export const HEADER_BYTES = MAGIC.length + 2;
/** Size of a frame header: u32 LE payload length, u32 LE crc32(payload). */
export const FRAME_HEADER_BYTES = 8;
/** Larger lengths are impossible: they mark damage rather than a real event (blobs hold big payloads). */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n += 1) {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** Table-driven CRC-32 (IEEE), only used where zlib.crc32 is missing (Node < 20.15). */
export function tableCrc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i += 1) c = TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** CRC-32 (IEEE) of the bytes; native when the runtime has it. */
export const crc32: (data: Uint8Array) => number = typeof zlib.crc32 === 'function' ? (data) => zlib.crc32(data) : tableCrc32;

/** The header of a new log file. */
export function fileHeader(): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt16LE(FORMAT_VERSION, MAGIC.length);
  return header;
}

/** Throws unless `header` is a header this evalog can read. */
export function checkHeader(header: Buffer, file: string): void {
  if (header.length < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new LogCorruptedError(`${file}: not an evalog event log (bad magic at byte 0)`, file, 0);
  }
  const version = header.readUInt16LE(MAGIC.length);
  if (version !== FORMAT_VERSION) {
    throw new LogCorruptedError(`${file}: log format version ${version}, this evalog reads version ${FORMAT_VERSION}`, file, MAGIC.length);
  }
}

/** Whether a frame header announces a length that a real frame could have. */
export function plausibleLength(length: number): boolean {
  return length > 0 && length <= MAX_PAYLOAD_BYTES;
}

/** Writes one frame for `payload` into `target` at `at`; returns the offset after it. */
export function writeFrame(target: Buffer, at: number, payload: Uint8Array): number {
  target.writeUInt32LE(payload.length, at);
  target.writeUInt32LE(crc32(payload), at + 4);
  target.set(payload, at + FRAME_HEADER_BYTES);
  return at + FRAME_HEADER_BYTES + payload.length;
}

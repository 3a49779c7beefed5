import { compress } from '@mongodb-js/zstd';
import { decompress } from 'fzstd';

/** Zstandard magic number of a data frame, little-endian 0xFD2FB528. */
const FRAME_MAGIC = [0x28, 0xb5, 0x2f, 0xfd] as const;

/** Data that is not a complete Zstandard stream. */
export class ZstdInputError extends Error {
  override name = 'ZstdInputError';
}

/**
 * Decodes one or more concatenated Zstandard frames (a multi-frame `.zst`/`.zstd` file) with the
 * pure-JS decoder, so reading needs no native code. Throws `ZstdInputError` on bad or truncated data.
 */
export function decompressFrames(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0) throw new ZstdInputError('empty Zstandard input');
  if (!FRAME_MAGIC.every((b, i) => bytes[i] === b) && !isSkippableFrame(bytes)) {
    throw new ZstdInputError('not Zstandard data (no frame magic number at byte 0)');
  }
  try {
    return decompress(bytes);
  } catch (err) {
    throw new ZstdInputError(`invalid or truncated Zstandard data: ${(err as Error).message}`, { cause: err });
  }
}

/** Compresses bytes into one Zstandard frame (native encoder). */
export async function compressFrame(bytes: Uint8Array, level = 3): Promise<Buffer> {
  return compress(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), level);
}

function isSkippableFrame(bytes: Uint8Array): boolean {
  // Skippable frames: magic 0x184D2A5? (little-endian ?0 2A 4D 18).
  return bytes.length >= 4 && (bytes[0]! & 0xf0) === 0x50 && bytes[1] === 0x2a && bytes[2] === 0x4d && bytes[3] === 0x18;
}

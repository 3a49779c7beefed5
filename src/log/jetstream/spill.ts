// An event larger than one NATS message (the server's max_payload, 1 MB unless configured; a
// run's plan of ten thousand jobs is larger) is stored as a blob of its run, and the stream holds a
// pointer in its place: "EVSPILL1" then the blob's raw sha256. The event keeps its subject, its
// Nats-Msg-Id (dedup) and its place in the stream; only its bytes live in the blob store. An encoded
// event is a msgpack map, whose first byte is never "E", so a pointer cannot be taken for an event.
import { BlobNotFoundError, LogCorruptedError } from '../errors.js';
import type { BlobStore } from '../types.js';

const MAGIC = Buffer.from('EVSPILL1', 'latin1');
const HASH_BYTES = 32;

/** The stream payload that stands for an event stored as the blob `hash`. */
export function pointerTo(hash: string): Buffer {
  const out = Buffer.alloc(MAGIC.length + HASH_BYTES);
  MAGIC.copy(out, 0);
  out.write(hash, MAGIC.length, 'hex');
  return out;
}

/** The blob hash a stream payload points to, or null when the payload is the event itself. */
export function spilledHash(data: Uint8Array): string | null {
  if (data.length !== MAGIC.length + HASH_BYTES || !MAGIC.equals(data.subarray(0, MAGIC.length))) return null;
  return Buffer.from(data.subarray(MAGIC.length)).toString('hex');
}

/** The event bytes of a stream payload: itself, or the blob it points to (missing or altered: damage at `where`). */
export async function eventBytes(data: Uint8Array, blobs: () => BlobStore, where: string): Promise<Uint8Array> {
  const hash = spilledHash(data);
  if (hash === null) return data;
  try {
    return await blobs().get(hash);
  } catch (e) {
    if (e instanceof BlobNotFoundError || e instanceof LogCorruptedError) {
      throw new LogCorruptedError(`${where}: the event stored as blob ${hash} cannot be read: ${(e as Error).message}`, where, 0, { cause: e });
    }
    throw e;
  }
}

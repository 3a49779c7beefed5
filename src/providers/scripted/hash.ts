import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical.js';

// The one canonical JSON (sorted keys, `undefined` members dropped, no whitespace), so a body
// parsed from the wire and the same object built in code agree.
export { canonicalJson } from '../../core/canonical.js';

/** sha256 of a UTF-8 string, hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The documented request hash: sha256 (hex) of the canonical JSON (sorted keys) of the parsed
 * request body, exactly as received. This is the key of `stats().byRequestHash`.
 */
export function requestHash(body: unknown): string {
  return sha256Hex(canonicalJson(body));
}

/** Fields that only change how the answer is transported, not what it is. */
const TRANSPORT_FIELDS = new Set(['stream', 'stream_options']);

/**
 * Hash of what the request asks (the body without `stream`/`stream_options`) together with the
 * server seed. It seeds the players and names the response (`id`, tool call ids), so a streamed
 * and a plain request with the same question get the same answer.
 */
export function answerKey(body: Record<string, unknown>, seed: number): string {
  const asked = Object.fromEntries(Object.entries(body).filter(([k]) => !TRANSPORT_FIELDS.has(k)));
  return sha256Hex(`scripted:${seed}:${canonicalJson(asked)}`);
}

/** A deterministic draw in [0, 1) for one named decision about one request (fault rate, latency). */
export function unitDraw(key: string, purpose: string): number {
  const digest = createHash('sha256').update(`${purpose}:${key}`, 'utf8').digest();
  // 48 bits keep the result exact in a double.
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** A seeded PRNG (sfc32) from a hex key; players get one per request so their choices replay. */
export function rngFromKey(key: string): () => number {
  const digest = createHash('sha256').update(`rng:${key}`, 'utf8').digest();
  let a = digest.readInt32BE(0);
  let b = digest.readInt32BE(4);
  let c = digest.readInt32BE(8);
  let d = digest.readInt32BE(12);
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

import { createHash } from 'node:crypto';

/** A small seeded PRNG (mulberry32) for job-local choices; CPython-compatible draws live in src/stats. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives a stable 31-bit seed from a parent seed and labels (e.g. job id), independent of order of use. */
export function deriveSeed(seed: number, ...labels: string[]): number {
  const h = createHash('sha256')
    .update(`${seed}\u0000${labels.join('\u0000')}`)
    .digest();
  return h.readUInt32BE(0) & 0x7fffffff;
}

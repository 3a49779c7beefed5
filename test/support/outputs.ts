// Output files of two runs compared with what only wall clock (and the run id) makes differ taken out.
import { readFile } from 'node:fs/promises';

type Json = Record<string, any>;

/** Reads a JSON file. */
export const readJson = async (p: string): Promise<Json> => JSON.parse(await readFile(p, 'utf8'));

/** A generic summary without its run id and per-arm seconds. */
export const noSeconds = (s: Json): Json => {
  const arms = Object.fromEntries(Object.entries(s.arms as Json).map(([k, a]) => [k, { ...a, mean_seconds: null, median_seconds: null }]));
  return { ...s, run_id: null, arms };
};

/** A usage report without call latencies. */
export const noLatency = (u: Json): Json => ({ ...u, calls: u.calls.map((c: Json) => ({ ...c, latency_ms: null })) });

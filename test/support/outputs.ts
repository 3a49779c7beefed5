// Output files of two runs compared with what only wall clock (and the run id) makes differ taken out.
import { readFile } from 'node:fs/promises';

// biome-ignore lint/suspicious/noExplicitAny: callers read these files by deep paths (test/e2e/dataset-judge.test.ts, test/e2e/workers.test.ts); `unknown` here gives 22 tsc errors in those files, so it waits until they type what they read
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

/**
 * The outputs of a run with attempts cut off (a process killed or paused mid-call, its job taken
 * over), shaped so they compare equal to an undisturbed run's: each cut-off attempt (outcome
 * `unknown`, kept because it may have reached the model) is dropped from usage.json with attempt
 * numbers taken out of call ids, and the call counts and completeness it changes are taken out of
 * the rows and summary of its job and arm. What the jobs concluded, and every known token, stays.
 * Returns the number of cut-off attempts (0: compare the files whole).
 */
export function withoutCutOff(rows: Json[], summary: Json, usage: Json): { cut: number; rows: Json[]; summary: Json; usage: Json } {
  const cut = (usage.calls as Json[]).filter((c) => c.outcome === 'unknown');
  const jobs = new Set(cut.map((c) => c.job_id));
  const arms = new Set(rows.filter((r) => jobs.has(r.job_id)).map((r) => r.arm));
  const recount = (u: Json | null | undefined): Json | null | undefined =>
    u && Object.fromEntries(Object.entries(u).map(([k, v]) => [k, v && typeof v === 'object' ? { ...v, unknown_calls: null, complete: null } : v]));
  return {
    cut: cut.length,
    rows: rows.map((r) => (jobs.has(r.job_id) ? { ...r, calls: null, failed_calls: null, usage: recount(r.usage) } : r)),
    summary: { ...summary, arms: Object.fromEntries(Object.entries(summary.arms as Json).map(([k, a]) => [k, arms.has(k) ? {
      ...a, calls: null, failed_calls: null, mean_total_tokens: null, usage_complete: null,
      tokens: a.tokens && Object.fromEntries(Object.entries(a.tokens as Json).map(([f, t]) => [f, { ...t, unknown_calls: null }])),
    } : a])) },
    usage: { calls: (usage.calls as Json[]).filter((c) => c.outcome !== 'unknown').map((c) => ({ ...c, call_id: String(c.call_id).replace(/\/attempt-\d+$/, ''), latency_ms: null })) },
  };
}

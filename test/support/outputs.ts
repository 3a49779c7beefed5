// Output files of two runs compared with what only wall clock (and the run id) makes differ taken out.
import { readFile } from 'node:fs/promises';

/** A JSON object whose fields these helpers do not need to know. */
export type Json = Record<string, unknown>;
/** What these helpers touch of a summary.json: its arms (an arm's `tokens` by field, when present). */
export type SummaryFile = { arms: Record<string, Json>; paired?: Json[] };
/** What these helpers touch of a usage.json: its calls. */
export type UsageFile = { calls: Json[] };

/** Reads a JSON file; `T` is what the caller knows of its shape. */
export const readJson = async <T = Json>(p: string): Promise<T> => JSON.parse(await readFile(p, 'utf8'));

/** A generic summary without its run id, per-arm seconds and the paired blocks' time deltas. */
export const noSeconds = <S extends SummaryFile>(s: S) => {
  const arms = Object.fromEntries(Object.entries(s.arms).map(([k, a]) => [k, { ...a, mean_seconds: null, median_seconds: null }]));
  return { ...s, run_id: null, arms, ...(s.paired && { paired: s.paired.map((p) => ({ ...p, seconds: null })) }) };
};

/** A usage report without call latencies. */
export const noLatency = <U extends UsageFile>(u: U) => ({ ...u, calls: u.calls.map((c) => ({ ...c, latency_ms: null })) });

/**
 * The outputs of a run with attempts cut off (a process killed or paused mid-call, its job taken
 * over), shaped so they compare equal to an undisturbed run's: each cut-off attempt (outcome
 * `unknown`, kept because it may have reached the model) is dropped from usage.json with attempt
 * numbers taken out of call ids, and the call counts and completeness it changes are taken out of
 * the rows and summary of its job and arm. What the jobs concluded, and every known token, stays.
 * Returns the number of cut-off attempts (0: compare the files whole).
 */
export function withoutCutOff(rows: Json[], summary: SummaryFile, usage: UsageFile): { cut: number; rows: Json[]; summary: SummaryFile; usage: UsageFile } {
  const cut = usage.calls.filter((c) => c.outcome === 'unknown');
  const jobs = new Set(cut.map((c) => c.job_id));
  const arms = new Set(rows.filter((r) => jobs.has(r.job_id)).map((r) => r.arm));
  const recount = (u: Json | null | undefined): Json | null | undefined =>
    u && Object.fromEntries(Object.entries(u).map(([k, v]) => [k, v && typeof v === 'object' ? { ...v, unknown_calls: null, complete: null } : v]));
  return {
    cut: cut.length,
    rows: rows.map((r) => (jobs.has(r.job_id) ? { ...r, calls: null, failed_calls: null, usage: recount(r.usage as Json | null | undefined) } : r)),
    summary: {
      ...summary,
      arms: Object.fromEntries(
        Object.entries(summary.arms).map(([k, a]) => [
          k,
          arms.has(k)
            ? {
                ...a,
                calls: null,
                failed_calls: null,
                mean_total_tokens: null,
                usage_complete: null,
                tokens: a.tokens && Object.fromEntries(Object.entries(a.tokens as Record<string, Json>).map(([f, t]) => [f, { ...t, unknown_calls: null }])),
              }
            : a,
        ]),
      ),
      // A cut-off attempt's usage is unknown, so the paired token deltas count its job apart.
      ...(summary.paired && { paired: cut.length ? summary.paired.map((p) => ({ ...p, tokens: null })) : summary.paired }),
    },
    usage: {
      calls: usage.calls
        .filter((c) => c.outcome !== 'unknown')
        .map((c) => ({ ...c, call_id: String(c.call_id).replace(/\/attempt-\d+$/, ''), latency_ms: null })),
    },
  };
}

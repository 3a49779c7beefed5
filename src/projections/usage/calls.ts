import type { StoredEvent, Usage } from '../../events/index.js';
import type { Projection } from '../projection.js';
import { aggregateUsage, type CallRecord, type UsageField, type UsageReport } from './report.js';

/** One call attempt as listed in usage.json. */
export interface CallRow {
  job_id: string;
  call_id: string;
  attribution: CallRecord['attribution'];
  outcome: CallRecord['outcome'];
  /** failure kind, or the finish reason of a success ("length" = truncated). */
  detail: string | null;
  model: string;
  latency_ms: number | null;
  usage: Partial<Record<UsageField, number>> | null;
}

/** usage.json: the report and every call attempt, sorted by job and call id. */
export interface UsageFile {
  report: UsageReport;
  calls: CallRow[];
}

/** Maps reported OpenAI-style usage to report fields; a field the provider left out stays absent. */
export function usageFields(u: Usage | null): Partial<Record<UsageField, number>> | undefined {
  if (!u) return undefined;
  const out: Partial<Record<UsageField, number>> = {};
  if (u.prompt !== null) out.inputTokens = u.prompt;
  if (u.completion !== null) out.outputTokens = u.completion;
  if (u.total !== null) out.totalTokens = u.total;
  if (typeof u.cached === 'number') out.cacheReadTokens = u.cached;
  return Object.keys(out).length > 0 ? out : undefined;
}

type State = Map<string, CallRow>;

/** The usage projection: one row per call attempt, aggregated into the report. */
export const usageProjection: Projection<State, UsageFile> = {
  name: 'usage',
  initialState: () => new Map(),
  canHandle: (e) => e.type === 'ProviderCallRequested' || e.type === 'ProviderCallSucceeded' || e.type === 'ProviderCallFailed',
  evolve(calls, e: StoredEvent) {
    const jobId = e.jobId ?? '_run';
    if (e.type === 'ProviderCallRequested') {
      // An attempt with no recorded outcome (a crash in flight) stays "unknown": it is not invented away.
      calls.set(`${jobId}/${e.data.callId}`, {
        job_id: jobId, call_id: e.data.callId, attribution: e.data.attribution, outcome: 'unknown',
        detail: null, model: e.data.model, latency_ms: null, usage: null,
      });
    } else if (e.type === 'ProviderCallSucceeded' || e.type === 'ProviderCallFailed') {
      const row = calls.get(`${jobId}/${e.data.callId}`);
      if (!row) return calls;
      row.latency_ms = e.data.latencyMs;
      if (e.type === 'ProviderCallSucceeded') {
        row.outcome = 'success';
        row.detail = e.data.finishReason;
        row.usage = usageFields(e.data.usage) ?? null;
      } else {
        row.outcome = e.data.kind === 'aborted' ? 'aborted' : 'failure';
        row.detail = e.data.kind;
      }
    }
    return calls;
  },
  result(calls) {
    const rows = [...calls.values()].sort((a, b) => cmp(a.job_id, b.job_id) || cmp(a.call_id, b.call_id));
    const records: CallRecord[] = rows.map((r) => ({
      callId: `${r.job_id}/${r.call_id}`, attribution: r.attribution, outcome: r.outcome, model: r.model,
      ...(r.usage ? { usage: r.usage } : {}),
    }));
    return { report: aggregateUsage(records), calls: rows };
  },
};

/** Code-unit string order, the same on every platform and locale. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

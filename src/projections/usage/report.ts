/** Usage fields of the report, as normalised from provider usage. */
export const USAGE_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;
/** One usage field name. */
export type UsageField = (typeof USAGE_FIELDS)[number];

/** One provider call attempt, as usage accounting sees it. */
export interface CallRecord {
  callId: string;
  attribution: 'main' | 'query' | 'child' | 'unknown';
  outcome: 'success' | 'failure' | 'aborted' | 'unknown';
  provider?: string;
  model?: string;
  /** Only fields the provider reported; absent when it reported none. */
  usage?: Partial<Record<UsageField, number>>;
}

/** Per field: the sum of known values (null when none is known), and known/unknown call counts. */
export interface FieldTotal {
  sum: number | null;
  knownCalls: number;
  unknownCalls: number;
}

/** Totals of a set of calls. */
export interface UsageTotals {
  calls: number;
  outcomes: Record<CallRecord['outcome'], number>;
  usage: { callsWithUsage: number; callsWithoutUsage: number; fields: Record<UsageField, FieldTotal> };
}

/** The usage report: all calls, failed ones apart, and per attribution. Missing usage is never zero. */
export interface UsageReport extends UsageTotals {
  schemaVersion: 1;
  billing: { status: 'unknown' };
  failed: UsageTotals;
  byAttribution: Record<CallRecord['attribution'], UsageTotals>;
}

/** Aggregates call records; additive, so per-attribution totals add up to the whole. */
export function aggregateUsage(records: readonly CallRecord[]): UsageReport {
  const sorted = [...records].sort((a, b) => (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0));
  return {
    schemaVersion: 1,
    ...totalsOf(sorted),
    billing: { status: 'unknown' },
    failed: totalsOf(sorted.filter((r) => r.outcome === 'failure' || r.outcome === 'aborted')),
    byAttribution: {
      main: totalsOf(sorted.filter((r) => r.attribution === 'main')),
      query: totalsOf(sorted.filter((r) => r.attribution === 'query')),
      child: totalsOf(sorted.filter((r) => r.attribution === 'child')),
      unknown: totalsOf(sorted.filter((r) => r.attribution === 'unknown')),
    },
  };
}

/** Totals of a list of calls. */
export function totalsOf(records: readonly CallRecord[]): UsageTotals {
  const fields = Object.fromEntries(USAGE_FIELDS.map((f) => [f, { sum: null, knownCalls: 0, unknownCalls: 0 } as FieldTotal])) as Record<UsageField, FieldTotal>;
  const outcomes = { success: 0, failure: 0, aborted: 0, unknown: 0 };
  let withUsage = 0;
  for (const r of records) {
    outcomes[r.outcome] += 1;
    if (r.usage) withUsage += 1;
    for (const f of USAGE_FIELDS) {
      const v = r.usage?.[f];
      const t = fields[f];
      if (typeof v === 'number') {
        t.sum = (t.sum ?? 0) + v;
        t.knownCalls += 1;
      } else {
        t.unknownCalls += 1;
      }
    }
  }
  return { calls: records.length, outcomes, usage: { callsWithUsage: withUsage, callsWithoutUsage: records.length - withUsage, fields } };
}

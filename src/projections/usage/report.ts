import { canonicalJson } from '../../core/canonical.js';

// usage.json's accounting of a run's provider calls: records are normalised, de-duplicated by
// callId and aggregated without ever counting missing usage as zero or synthesising a field from
// others. Its field names and their disjoint meaning are the DeepSeek Harness aggregator's, so a
// study whose spec adopts that aggregator reads usage.json as its spec's (see the study's report).

/** Usage fields of the report, with DeepSeek Harness `TokenUsage` meaning (input excludes cache). */
export const USAGE_FIELDS = ['inputTokens', 'outputTokens', 'totalTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;
/** One usage field name. */
export type UsageField = (typeof USAGE_FIELDS)[number];

/** Who a call is attributed to; anything else normalises to `unknown`. */
export const ATTRIBUTIONS = ['main', 'query', 'child', 'unknown'] as const;
export type CallAttribution = (typeof ATTRIBUTIONS)[number];

/** Terminal outcome of a call; anything else normalises to `unknown`. */
export const OUTCOMES = ['success', 'failure', 'aborted', 'unknown'] as const;
export type CallOutcome = (typeof OUTCOMES)[number];

/** Reported usage of one call: only the fields the provider reported, each a finite number >= 0. */
export type CallUsage = Partial<Record<UsageField, number>>;

/** One provider call attempt, normalised. */
export interface CallRecord {
  callId: string;
  attribution: CallAttribution;
  outcome: CallOutcome;
  provider?: string;
  model?: string;
  /** Only when the provider reported valid usage. */
  usage?: CallUsage;
  /** Provider billing facts, verbatim, only when the provider gave some. */
  billing?: unknown;
}

/** Per field: the sum of known values (null when none is known), and known/unknown call counts. */
export interface FieldTotal {
  sum: number | null;
  knownCalls: number;
  unknownCalls: number;
}

/** Billing: unknown unless some call carried provider billing facts (no prices are built in). */
export type BillingSummary = { status: 'unknown' } | { status: 'reported' | 'partial'; reported: { callId: string; value: unknown }[]; unknownCalls: number };

/** Totals of a set of calls. */
export interface UsageTotals {
  calls: number;
  outcomes: Record<CallOutcome, number>;
  usage: { callsWithUsage: number; callsWithoutUsage: number; fields: Record<UsageField, FieldTotal> };
  billing: BillingSummary;
}

/** The usage report: all calls, failed/aborted ones apart, and per attribution. Missing usage is never zero. */
export interface UsageReport extends UsageTotals {
  schemaVersion: 1;
  failed: UsageTotals;
  byAttribution: Record<CallAttribution, UsageTotals>;
  diagnostics: { conflictingCallIds: string[] };
}

/** A record that cannot be aggregated (no callId). */
export class InvalidCallRecordError extends Error {
  override name = 'InvalidCallRecordError';
}

/** True when `usage` is an object with at least one valid field and no invalid one. */
export function isValidUsage(usage: unknown): usage is Record<string, unknown> {
  if (!isRecord(usage)) return false;
  const valid = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  return USAGE_FIELDS.some((f) => valid(usage[f])) && USAGE_FIELDS.every((f) => usage[f] === undefined || valid(usage[f]));
}

/**
 * Normalises one raw record: callId must be a non-empty string (else throws); attribution and
 * outcome outside their sets become `unknown`; provider and model are kept only as strings;
 * usage only when valid, projected onto the report fields; billing verbatim when present.
 */
export function normalizeRecord(raw: unknown): CallRecord {
  if (!isRecord(raw) || typeof raw.callId !== 'string' || raw.callId.length === 0) {
    throw new InvalidCallRecordError('each usage record needs a non-empty callId');
  }
  const out: CallRecord = {
    callId: raw.callId,
    attribution: (ATTRIBUTIONS as readonly unknown[]).includes(raw.attribution) ? (raw.attribution as CallAttribution) : 'unknown',
    outcome: (OUTCOMES as readonly unknown[]).includes(raw.outcome) ? (raw.outcome as CallOutcome) : 'unknown',
  };
  if (typeof raw.provider === 'string') out.provider = raw.provider;
  if (typeof raw.model === 'string') out.model = raw.model;
  if (isValidUsage(raw.usage)) {
    const u = raw.usage;
    const usage: CallUsage = {};
    for (const f of USAGE_FIELDS) if (u[f] !== undefined) usage[f] = u[f] as number;
    out.usage = usage;
  }
  if (raw.billing !== undefined) out.billing = raw.billing;
  return out;
}

/**
 * De-duplicates normalised records by callId: an identical duplicate counts once; differing ones
 * become one record whose attribution/outcome are kept only when all agree (else `unknown`),
 * provider/model only when all agree, and no usage or billing. Returned sorted by callId.
 */
export function dedupeRecords(records: Iterable<unknown>): { calls: CallRecord[]; conflictingCallIds: string[] } {
  const versions = new Map<string, Map<string, CallRecord>>();
  for (const raw of records) {
    const r = normalizeRecord(raw);
    let byJson = versions.get(r.callId);
    if (!byJson) {
      byJson = new Map();
      versions.set(r.callId, byJson);
    }
    const key = canonicalJson(r);
    if (!byJson.has(key)) byJson.set(key, r);
  }
  const calls: CallRecord[] = [];
  const conflictingCallIds: string[] = [];
  for (const [callId, byJson] of versions) {
    const all = [...byJson.values()];
    if (all.length === 1) {
      calls.push(all[0]!);
      continue;
    }
    conflictingCallIds.push(callId);
    const agreed = <K extends 'attribution' | 'outcome' | 'provider' | 'model'>(k: K): CallRecord[K] | undefined =>
      all.every((r) => r[k] === all[0]![k]) ? all[0]![k] : undefined;
    const merged: CallRecord = { callId, attribution: agreed('attribution') ?? 'unknown', outcome: agreed('outcome') ?? 'unknown' };
    const provider = agreed('provider');
    const model = agreed('model');
    if (provider !== undefined) merged.provider = provider;
    if (model !== undefined) merged.model = model;
    calls.push(merged);
  }
  calls.sort((a, b) => cmpStr(a.callId, b.callId));
  conflictingCallIds.sort(cmpStr);
  return { calls, conflictingCallIds };
}

/** Aggregates raw call records into the report; the result does not depend on record order. */
export function aggregateUsage(records: Iterable<unknown>): UsageReport {
  const { calls, conflictingCallIds } = dedupeRecords(records);
  const report = new ReportAccumulator();
  for (const c of calls) report.add(c);
  return report.result(conflictingCallIds);
}

/**
 * The report of records whose callIds are known to be distinct (one run's attempts): the same as
 * aggregateUsage, without the de-duplication pass (which serialises every record to compare it).
 */
export function aggregateDistinctUsage(records: Iterable<unknown>): UsageReport {
  const report = new ReportAccumulator();
  for (const raw of records) report.add(normalizeRecord(raw));
  return report.result([]);
}

/** The report's totals, folded one normalised, de-duplicated call at a time. */
export class ReportAccumulator {
  readonly #all = new TotalsAccumulator();
  readonly #failed = new TotalsAccumulator();
  readonly #by: Record<CallAttribution, TotalsAccumulator> = {
    main: new TotalsAccumulator(),
    query: new TotalsAccumulator(),
    child: new TotalsAccumulator(),
    unknown: new TotalsAccumulator(),
  };

  add(c: CallRecord): void {
    this.#all.add(c);
    if (c.outcome === 'failure' || c.outcome === 'aborted') this.#failed.add(c);
    this.#by[c.attribution].add(c);
  }

  result(conflictingCallIds: string[]): UsageReport {
    return {
      schemaVersion: 1,
      ...this.#all.result(),
      failed: this.#failed.result(),
      byAttribution: {
        main: this.#by.main.result(),
        query: this.#by.query.result(),
        child: this.#by.child.result(),
        unknown: this.#by.unknown.result(),
      },
      diagnostics: { conflictingCallIds },
    };
  }
}

/** Totals of a set of calls, folded one call at a time (no per-field copies of the list). */
export class TotalsAccumulator {
  #calls = 0;
  #withUsage = 0;
  readonly #outcomes: Record<CallOutcome, number> = { success: 0, failure: 0, aborted: 0, unknown: 0 };
  readonly #sums = USAGE_FIELDS.map(() => 0);
  readonly #known = USAGE_FIELDS.map(() => 0);
  readonly #billing: { callId: string; value: unknown }[] = [];

  add(c: CallRecord): void {
    this.#calls += 1;
    this.#outcomes[c.outcome] += 1;
    if (c.usage !== undefined) {
      this.#withUsage += 1;
      for (let i = 0; i < USAGE_FIELDS.length; i += 1) {
        const v = c.usage[USAGE_FIELDS[i]!];
        if (v !== undefined) {
          this.#sums[i]! += v;
          this.#known[i]! += 1;
        }
      }
    }
    if (c.billing !== undefined) this.#billing.push({ callId: c.callId, value: c.billing });
  }

  result(): UsageTotals {
    const calls = this.#calls;
    const fields = {} as Record<UsageField, FieldTotal>;
    USAGE_FIELDS.forEach((f, i) => {
      const known = this.#known[i]!;
      fields[f] = { sum: known === 0 ? null : this.#sums[i]!, knownCalls: known, unknownCalls: calls - known };
    });
    // Listed in callId order whatever order the calls came in.
    const reported = [...this.#billing].sort((a, b) => cmpStr(a.callId, b.callId));
    const billing: BillingSummary =
      reported.length === 0
        ? { status: 'unknown' }
        : { status: reported.length === calls ? 'reported' : 'partial', reported, unknownCalls: calls - reported.length };
    return {
      calls,
      outcomes: { ...this.#outcomes },
      usage: { callsWithUsage: this.#withUsage, callsWithoutUsage: calls - this.#withUsage, fields },
      billing,
    };
  }
}

const NO_CALLS: UsageTotals = Object.freeze(new TotalsAccumulator().result());

/** Totals of normalised, de-duplicated calls per attribution, in one pass (usage.json's `byAttribution` of them). */
export function totalsByAttribution(calls: Iterable<CallRecord>): Record<CallAttribution, UsageTotals> {
  const by: Record<CallAttribution, TotalsAccumulator> = {
    main: new TotalsAccumulator(),
    query: new TotalsAccumulator(),
    child: new TotalsAccumulator(),
    unknown: new TotalsAccumulator(),
  };
  const used = new Set<CallAttribution>();
  for (const c of calls) {
    by[c.attribution].add(c);
    used.add(c.attribution);
  }
  // An attribution without calls has the one empty total (shared: a run has many jobs, outputs are never mutated).
  const of = (a: CallAttribution) => (used.has(a) ? by[a].result() : NO_CALLS);
  return { main: of('main'), query: of('query'), child: of('child'), unknown: of('unknown') };
}

/** Totals of a list of normalised, de-duplicated calls. */
export function totalsOf(calls: readonly CallRecord[]): UsageTotals {
  const acc = new TotalsAccumulator();
  for (const c of calls) acc.add(c);
  return acc.result();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function cmpStr(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

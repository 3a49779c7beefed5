// The deterministic `run-policy` step (A7): every case × capacity × policy through the selector,
// as the rows of policy.raw.jsonl and the grouped summary.json. No provider, no clock, no I/O.
import { compareCodePoints } from 'evalog';
import { msToMicros, parseIsoMicros } from './iso-time.js';
import { EVICTION_POLICIES, type EvictedFact, type EvictionPolicy, type FactScore, type SelectorParams, selectFactsAt } from './selector.js';
import type { EvalCase } from './types.js';

/** `policies.hybrid_v1` of the A1 config. */
export interface HybridV1Config {
  readonly weights: { readonly confidence: number; readonly confirmation: number; readonly access: number };
  readonly confirmation_half_life_days: number;
  readonly access_half_life_days: number;
  readonly correction_reserved_fraction: number;
  readonly correction_reserved_max: number;
}

/** What a policy run reads of the A1 config (field names as in the YAML). */
export interface PolicyRunConfig {
  readonly protocol_id: string;
  /** ISO timestamp (a naive one is taken as UTC) or epoch milliseconds. */
  readonly evaluation_time: string | number;
  readonly pool: { readonly capacities: readonly number[] };
  readonly policies: { readonly hybrid_v1: HybridV1Config };
}

/** The case fields a policy run uses (a full EvalCase fits). */
export type PolicyCase = Pick<EvalCase, 'case_id' | 'source' | 'scenario' | 'question_type' | 'facts' | 'usage' | 'support_fact_ids'>;

/** One line of policy.raw.jsonl. */
export interface PolicyRow {
  readonly schema_version: 1;
  readonly case_id: string;
  readonly source: string;
  readonly scenario: string;
  readonly question_type: string;
  readonly policy: EvictionPolicy;
  readonly capacity: number;
  readonly support_fact_ids: string[];
  readonly kept_fact_ids: string[];
  readonly evicted: EvictedFact[];
  /** By fact id, keys in sorted order. */
  readonly scores: Record<string, FactScore>;
  readonly support_all_retained: boolean;
  readonly support_recall: number;
  readonly reserved_correction_slots: number;
}

/** One group of summary.json. */
export interface PolicyGroup {
  readonly source: string;
  readonly scenario: string;
  readonly capacity: number;
  readonly policy: string;
  readonly cases: number;
  readonly support_all_retained: number;
  readonly support_all_retained_rate: number;
  readonly mean_support_recall: number;
}

/** summary.json of a policy run. */
export interface PolicySummary {
  readonly schema_version: 1;
  readonly protocol_id: string;
  readonly groups: PolicyGroup[];
}

/** The selector parameters of a `policies.hybrid_v1` block. */
export function selectorParamsFromConfig(h: HybridV1Config): SelectorParams {
  return {
    confidenceWeight: h.weights.confidence,
    confirmationWeight: h.weights.confirmation,
    accessWeight: h.weights.access,
    confirmationHalfLifeDays: h.confirmation_half_life_days,
    accessHalfLifeDays: h.access_half_life_days,
    correctionReservedFraction: h.correction_reserved_fraction,
    correctionReservedMax: h.correction_reserved_max,
  };
}

/** The evaluation clock as epoch microseconds. */
export function evaluationMicros(value: string | number): bigint {
  if (typeof value === 'number') return msToMicros(value);
  const us = parseIsoMicros(value);
  if (us === undefined) throw new RangeError(`evaluation_time is not an ISO timestamp: ${JSON.stringify(value)}`);
  return us;
}

/** Evaluates one case under one policy at one capacity: one policy.raw.jsonl row. */
export function evaluateCase(c: PolicyCase, policy: EvictionPolicy, capacity: number, params: SelectorParams, nowUs: bigint): PolicyRow {
  if (c.support_fact_ids.length === 0) throw new RangeError(`case ${c.case_id} has no support facts: support_recall is undefined`);
  const decision = selectFactsAt(c.facts, c.usage, capacity, policy, nowUs, params);
  const kept = new Set(decision.kept);
  const retained = new Set(c.support_fact_ids.filter((id) => kept.has(id)));
  const scores: Record<string, FactScore> = {};
  for (const id of Object.keys(decision.scores).sort(compareCodePoints)) {
    const s = decision.scores[id]!;
    Object.defineProperty(scores, id, { value: { value: s.value, components: { ...s.components } }, enumerable: true, writable: true, configurable: true });
  }
  return {
    schema_version: 1,
    case_id: c.case_id,
    source: c.source,
    scenario: c.scenario,
    question_type: c.question_type,
    policy,
    capacity,
    support_fact_ids: [...c.support_fact_ids],
    kept_fact_ids: decision.kept,
    evicted: decision.evicted,
    scores,
    // As the reference: |retained set| against the length of the (possibly repeating) support list.
    support_all_retained: retained.size === c.support_fact_ids.length,
    support_recall: retained.size / c.support_fact_ids.length,
    reserved_correction_slots: decision.reservedCorrectionSlots,
  };
}

/** Groups rows by (source, scenario, capacity, policy), sorted on those keys (strings by code point, capacity numerically). */
export function summarizePolicyRows(protocolId: string, rows: readonly PolicyRow[]): PolicySummary {
  const groups = new Map<string, PolicyRow[]>();
  for (const r of rows) {
    const key = JSON.stringify([r.source, r.scenario, r.capacity, r.policy]);
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  const out = [...groups.values()].map((list): PolicyGroup => {
    const { source, scenario, capacity, policy } = list[0]!;
    const retained = list.filter((r) => r.support_all_retained).length;
    let recall = 0;
    for (const r of list) recall += r.support_recall;
    return {
      source,
      scenario,
      capacity,
      policy,
      cases: list.length,
      support_all_retained: retained,
      support_all_retained_rate: retained / list.length,
      mean_support_recall: recall / list.length,
    };
  });
  out.sort(
    (a, b) =>
      compareCodePoints(a.source, b.source) || compareCodePoints(a.scenario, b.scenario) || a.capacity - b.capacity || compareCodePoints(a.policy, b.policy),
  );
  return { schema_version: 1, protocol_id: protocolId, groups: out };
}

/**
 * The whole run-policy step: for each case (in the given order), each configured capacity, each
 * policy (confidence, then hybrid-v1), one row; plus the summary. Hybrid parameters apply to both
 * policies as in the reference (confidence ignores them).
 */
export function runPolicy(cases: readonly PolicyCase[], config: PolicyRunConfig): { rows: PolicyRow[]; summary: PolicySummary } {
  const params = selectorParamsFromConfig(config.policies.hybrid_v1);
  const nowUs = evaluationMicros(config.evaluation_time);
  const rows: PolicyRow[] = [];
  for (const c of cases) {
    for (const capacity of config.pool.capacities) {
      for (const policy of EVICTION_POLICIES) rows.push(evaluateCase(c, policy, capacity, params, nowUs));
    }
  }
  return { rows, summary: summarizePolicyRows(config.protocol_id, rows) };
}

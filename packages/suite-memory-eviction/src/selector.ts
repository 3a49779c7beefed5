// Capacity selection of A4 (`select_facts_for_capacity`): score every fact, rank by score then input
// position, reserve correction slots (hybrid-v1 only), fill up to the capacity. Pure and
// deterministic: the clock is an argument, nothing is mutated.
import { accessHeat, confirmationFreshness, pyFloat } from './decay.js';
import { msToMicros, pyStrip } from './iso-time.js';

/** The two policies compared by the suite. */
export const EVICTION_POLICIES = ['confidence', 'hybrid-v1'] as const;
export type EvictionPolicy = (typeof EVICTION_POLICIES)[number];

/** Weights, half-lives and the correction reserve of hybrid-v1 (defaults: the production ones, = the A1 config). */
export interface SelectorParams {
  readonly confidenceWeight: number;
  readonly confirmationWeight: number;
  readonly accessWeight: number;
  readonly confirmationHalfLifeDays: number;
  readonly accessHalfLifeDays: number;
  readonly correctionReservedFraction: number;
  readonly correctionReservedMax: number;
}

export const DEFAULT_SELECTOR_PARAMS: SelectorParams = Object.freeze({
  confidenceWeight: 0.65,
  confirmationWeight: 0.25,
  accessWeight: 0.1,
  confirmationHalfLifeDays: 90,
  accessHalfLifeDays: 30,
  correctionReservedFraction: 0.1,
  correctionReservedMax: 10,
});

/**
 * What the selector reads of a fact. Loose on purpose: the reference tolerates missing or odd
 * values (default confidence 0.5, unparseable timestamps count as absent). The suite's `Fact`
 * (types.ts) is assignable to it.
 */
export interface SelectorFact {
  readonly id?: unknown;
  readonly category?: unknown;
  readonly confidence?: unknown;
  readonly createdAt?: unknown;
  readonly lastConfirmedAt?: unknown;
}

/** Usage entries by fact id (`accessHeat`, `lastAccessedAt` are read); the suite's `UsageMap` is assignable. */
export type SelectorUsage = Readonly<Record<string, unknown>>;

/** A fact's score and its named components: {confidence} or {confidence, confirmationFreshness, accessHeat}. */
export interface FactScore {
  readonly value: number;
  readonly components: Readonly<Record<string, number>>;
}

/** One evicted fact, lowest score first. */
export interface EvictedFact {
  readonly fact_id: string;
  readonly category: string;
  readonly score: number;
  readonly components: Readonly<Record<string, number>>;
}

/** The selector's decision. */
export interface Selection {
  /** Kept fact ids in ranked order (input order when nothing had to be evicted). */
  readonly kept: string[];
  /** Evicted facts: reversed ranking, i.e. lowest score first. */
  readonly evicted: EvictedFact[];
  /** Scores by fact id (a later duplicate id overwrites an earlier one, as the reference's dict). */
  readonly scores: Record<string, FactScore>;
  readonly reservedCorrectionSlots: number;
}

/** Python's truthiness for JSON-like values. */
function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === '' || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return !Number.isNaN(v);
}

/** Python's str() for the primitive values an id or category can hold. */
function pyStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v).toString();
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** `str(fact.get("id") or f"__missing_{index}")`. */
export function factId(fact: SelectorFact, index: number): string {
  return truthy(fact.id) ? pyStr(fact.id) : `__missing_${index}`;
}

/** clamp(float(confidence), 0, 1); 0.5 when missing, boolean, not a number or non-finite. */
export function boundedConfidence(value: unknown): number {
  if (typeof value === 'boolean') return 0.5;
  const n = pyFloat(value);
  if (n === undefined || !Number.isFinite(n)) return 0.5;
  return Math.max(0, Math.min(n, 1));
}

function scoreFact(fact: SelectorFact, usage: unknown, policy: string, nowUs: bigint, p: SelectorParams): FactScore {
  const confidence = boundedConfidence(fact.confidence);
  if (policy === 'confidence') return { value: confidence, components: { confidence } };
  if (policy !== 'hybrid-v1') throw new RangeError(`Unknown fact eviction policy: ${JSON.stringify(policy)}`);
  const confirmation = confirmationFreshness(fact, nowUs, p.confirmationHalfLifeDays);
  const access = accessHeat(usage, nowUs, p.accessHalfLifeDays);
  // Summed left to right, as the reference: (w1·c + w2·f) + w3·a.
  const value = p.confidenceWeight * confidence + p.confirmationWeight * confirmation + p.accessWeight * access;
  return { value, components: { confidence, confirmationFreshness: confirmation, accessHeat: access } };
}

/**
 * A4 selection at `now` given as epoch milliseconds (fractions carry microseconds). Facts beyond
 * `maxFacts` are evicted lowest score first; ties keep input order; hybrid-v1 first reserves
 * min(max, ceil(maxFacts·fraction)) slots for `correction` facts, if any exist.
 */
export function selectFactsForCapacity(
  facts: readonly SelectorFact[],
  usage: SelectorUsage | null | undefined,
  maxFacts: number,
  policy: EvictionPolicy,
  now: number,
  params: Partial<SelectorParams> = {},
): Selection {
  return selectFactsAt(facts, usage, maxFacts, policy, msToMicros(now), params);
}

/** selectFactsForCapacity with `now` as epoch microseconds (Python's datetime resolution). */
export function selectFactsAt(
  facts: readonly SelectorFact[],
  usage: SelectorUsage | null | undefined,
  maxFacts: number,
  policy: EvictionPolicy,
  nowUs: bigint,
  params: Partial<SelectorParams> = {},
): Selection {
  const p: SelectorParams = { ...DEFAULT_SELECTOR_PARAMS, ...params };
  const usageMap = usage ?? {};
  const ids = facts.map((f, i) => factId(f, i));
  const scores = new Map<string, FactScore>();
  facts.forEach((fact, i) => {
    const id = ids[i]!;
    const entry = Object.hasOwn(usageMap, id) ? usageMap[id] : undefined;
    scores.set(id, scoreFact(fact, entry, policy, nowUs, p));
  });
  const scoreRecord = Object.fromEntries(scores);
  if (facts.length <= maxFacts) {
    return { kept: [...ids], evicted: [], scores: scoreRecord, reservedCorrectionSlots: 0 };
  }

  const scoreAt = (i: number) => scores.get(ids[i]!)!.value;
  const ranked = facts
    .map((_, i) => i)
    .sort((a, b) => {
      const va = scoreAt(a);
      const vb = scoreAt(b);
      return va > vb ? -1 : va < vb ? 1 : a - b;
    });

  const selected = new Set<number>();
  let reserved = 0;
  if (policy === 'hybrid-v1' && maxFacts > 0) {
    const slots = Math.min(p.correctionReservedMax, Math.ceil(maxFacts * p.correctionReservedFraction));
    const corrections = ranked.filter((i) => pyStrip(pyStr(truthy(facts[i]!.category) ? facts[i]!.category : '')).toLowerCase() === 'correction');
    reserved = Math.min(slots, corrections.length, maxFacts);
    for (const i of corrections.slice(0, reserved)) selected.add(i); // slice() shares Python's negative-bound semantics
  }
  for (const i of ranked) {
    if (selected.size >= Math.max(0, maxFacts)) break;
    selected.add(i);
  }

  const kept = ranked.filter((i) => selected.has(i)).map((i) => ids[i]!);
  const evicted = [...ranked]
    .reverse()
    .filter((i) => !selected.has(i))
    .map((i): EvictedFact => {
      const score = scores.get(ids[i]!)!;
      const category = facts[i]!.category;
      return { fact_id: ids[i]!, category: pyStr(truthy(category) ? category : 'context'), score: score.value, components: { ...score.components } };
    });
  return { kept, evicted, scores: scoreRecord, reservedCorrectionSlots: reserved };
}

// Two sides compared on the (case, repetition)s graded on both: who passed, McNemar's exact test,
// a seeded paired bootstrap of the pass-rate difference, and what the pairs cost on each side.
import { exactMcNemar, pairedBootstrap, type BootstrapOptions, type Pair } from '../../stats/index.js';
import { cmp } from '../usage/index.js';
import type { Side, SideJob } from './sides.js';

/** A (case, repetition) that passed on one side only. */
export interface Flip {
  case_id: string;
  repetition: number;
}

/** Means over the pairs whose figure is known on both sides; `unknown` counts the pairs where it is not. */
export interface Delta {
  known: number;
  unknown: number;
  mean_a: number | null;
  mean_b: number | null;
  /** Mean of b − a per pair. */
  mean_difference: number | null;
}

/** One comparison of side `a` (the baseline) with side `b`. */
export interface SideComparison {
  a: string;
  b: string;
  /** (case, repetition)s graded on both sides. */
  n: number;
  passed_a: number;
  passed_b: number;
  both: number;
  neither: number;
  /** Discordant: only a passed (McNemar's b). */
  a_only: number;
  /** Discordant: only b passed (McNemar's c). */
  b_only: number;
  rate_a: number | null;
  rate_b: number | null;
  /** Exact two-sided McNemar p; null without pairs. */
  mcnemar_p: number | null;
  /** Paired percentile bootstrap of rate_b − rate_a over the pairs in (case, repetition) order; null without pairs. */
  bootstrap: { difference: number; lower: number; upper: number; seed: number; iterations: number; alpha: number } | null;
  /** (case, repetition)s of either side that are not pairs: absent from a side, or failed/unfinished there. */
  unpaired: { total: number; missing_a: number; missing_b: number; ungraded_a: number; ungraded_b: number };
  tokens: { input: Delta; output: Delta; total: Delta };
  seconds: Delta;
  /** Sorted by case id (code units), then repetition. */
  flipped: { a_only: Flip[]; b_only: Flip[] };
}

/**
 * Up to this many sides every pair is compared (at most 15); past it each side against the first
 * (the baseline): all k(k−1)/2 pairs would be as many lines and tests, most of them chance findings.
 */
export const ALL_PAIRS_MAX_ARMS = 6;

/** The pairs of sides compared, by index: all of them up to ALL_PAIRS_MAX_ARMS sides, else each against the first (the baseline). */
export function sidePairs(count: number): [a: number, b: number][] {
  const out: [number, number][] = [];
  if (count > ALL_PAIRS_MAX_ARMS) {
    for (let j = 1; j < count; j++) out.push([0, j]);
    return out;
  }
  for (let i = 0; i < count; i++) for (let j = i + 1; j < count; j++) out.push([i, j]);
  return out;
}

const keyOf = (j: SideJob): string => `${j.case_id}\u0000${j.repetition}`;
const byKey = (x: Flip, y: Flip): number => cmp(x.case_id, y.case_id) || x.repetition - y.repetition;

/** Compares two sides; a pure function of their jobs and the bootstrap settings. */
export function compareSides(a: Side, b: Side, bootstrap: BootstrapOptions): SideComparison {
  const first = new Map(a.jobs.map((j) => [keyOf(j), j]));
  const second = new Map(b.jobs.map((j) => [keyOf(j), j]));
  const paired: [SideJob, SideJob][] = [];
  const unpaired = { total: 0, missing_a: 0, missing_b: 0, ungraded_a: 0, ungraded_b: 0 };
  for (const k of new Set([...first.keys(), ...second.keys()])) {
    const x = first.get(k);
    const y = second.get(k);
    if (x?.passed != null && y?.passed != null) {
      paired.push([x, y]);
      continue;
    }
    unpaired.total++;
    if (!x) unpaired.missing_a++;
    else if (x.passed === null) unpaired.ungraded_a++;
    if (!y) unpaired.missing_b++;
    else if (y.passed === null) unpaired.ungraded_b++;
  }
  // The bootstrap maps draws to pairs by position: a fixed order makes it a function of the rows.
  paired.sort(([x], [y]) => byKey(x, y));
  const pairs: Pair[] = paired.map(([x, y]) => [x.passed!, y.passed!]);
  const flipped = {
    a_only: paired.filter(([x, y]) => x.passed && !y.passed).map(([x]) => ({ case_id: x.case_id, repetition: x.repetition })),
    b_only: paired.filter(([x, y]) => !x.passed && y.passed).map(([x]) => ({ case_id: x.case_id, repetition: x.repetition })),
  };
  const costs = {
    tokens: {
      input: delta(paired, (j) => j.tokens.input),
      output: delta(paired, (j) => j.tokens.output),
      total: delta(paired, (j) => j.tokens.total),
    },
    seconds: delta(paired, (j) => j.seconds),
  };
  const n = pairs.length;
  if (n === 0) {
    const none = { passed_a: 0, passed_b: 0, both: 0, neither: 0, a_only: 0, b_only: 0, rate_a: null, rate_b: null, mcnemar_p: null, bootstrap: null };
    return { a: a.name, b: b.name, n, ...none, unpaired, ...costs, flipped };
  }
  const t = exactMcNemar(pairs);
  const boot = pairedBootstrap(pairs, bootstrap);
  const passedA = t.both_correct + t.only_first_correct;
  const passedB = t.both_correct + t.only_second_correct;
  return {
    a: a.name,
    b: b.name,
    n,
    passed_a: passedA,
    passed_b: passedB,
    both: t.both_correct,
    neither: t.both_wrong,
    a_only: t.only_first_correct,
    b_only: t.only_second_correct,
    rate_a: passedA / n,
    rate_b: passedB / n,
    mcnemar_p: t.p_value,
    bootstrap: { difference: boot.mean_difference, lower: boot.lower, upper: boot.upper, seed: boot.seed, iterations: boot.iterations, alpha: boot.alpha },
    unpaired,
    ...costs,
    flipped,
  };
}

function delta(paired: readonly [SideJob, SideJob][], figure: (j: SideJob) => number | null): Delta {
  let known = 0;
  let sumA = 0;
  let sumB = 0;
  let sumD = 0;
  for (const [x, y] of paired) {
    const fa = figure(x);
    const fb = figure(y);
    if (fa === null || fb === null) continue;
    known++;
    sumA += fa;
    sumB += fb;
    sumD += fb - fa;
  }
  const unknown = paired.length - known;
  if (known === 0) return { known, unknown, mean_a: null, mean_b: null, mean_difference: null };
  return { known, unknown, mean_a: sumA / known, mean_b: sumB / known, mean_difference: sumD / known };
}

// The paired comparison of arms in the generic summary. Jobs of different arms with the same case
// and repetition share their seed (planJobs), so they are pairs: the discordant ones say whether two
// arms differ, which two per-arm pass rates, each with its own noise, cannot.
import { exactMcNemar, type Pair } from '../stats/index.js';
import type { Row } from './rows.js';
import { cmp } from './usage/index.js';

/**
 * Two arms compared on the (case, repetition)s graded under both. `both`..`neither` say who passed;
 * rates are over the pairs alone (an arm's `pass_rate` is over all its finished jobs); `unpaired`
 * counts the run's (case, repetition)s that are not pairs, so `pairs + unpaired` is the same for
 * every pair of arms of a run.
 */
export interface PairedArms {
  a: string;
  b: string;
  pairs: number;
  both: number;
  a_only: number;
  b_only: number;
  neither: number;
  rate_a: number | null;
  rate_b: number | null;
  /** rate_b − rate_a. */
  difference: number | null;
  /** Exact two-sided McNemar on the discordant pairs; null without any pair. */
  mcnemar: { p_value: number | null };
  unpaired: number;
}

/**
 * Up to this many arms every pair is compared (at most 15); past it each arm against the first in
 * sorted order, as the baseline: all k(k−1)/2 pairs would be as many lines and tests, most of them
 * chance findings.
 */
export const ALL_PAIRS_MAX_ARMS = 6;

/** The pairs of arms compared: all of them for a few arms, else each against the first; arms sorted, `a` before `b`. */
export function armPairs(arms: readonly string[]): [a: string, b: string][] {
  const sorted = [...new Set(arms)].sort(cmp);
  const out: [string, string][] = [];
  if (sorted.length > ALL_PAIRS_MAX_ARMS) {
    for (const b of sorted.slice(1)) out.push([sorted[0]!, b]);
    return out;
  }
  for (let i = 0; i < sorted.length; i++) for (let j = i + 1; j < sorted.length; j++) out.push([sorted[i]!, sorted[j]!]);
  return out;
}

// A failed job concluded nothing about the arm (its `passed: false` comes from JobFailed, not a
// grader), and an unfinished one nothing yet: neither enters a pair.
const graded = (r: Row): boolean | null => (r.status === 'succeeded' && r.passed !== null ? r.passed : null);

const keyOf = (r: Row): string => `${r.case_id}\u0000${r.repetition}`;

/** The paired comparisons of a run's rows (see `armPairs` for which), a pure function of the rows. */
export function pairedArms(rows: readonly Row[]): PairedArms[] {
  const keys = new Set<string>();
  // Per arm: (case, repetition) → graded outcome; planJobs makes one job per arm, case and repetition.
  const byArm = new Map<string, Map<string, boolean | null>>();
  for (const r of rows) {
    const k = keyOf(r);
    keys.add(k);
    const arm = byArm.get(r.arm) ?? new Map<string, boolean | null>();
    arm.set(k, graded(r));
    byArm.set(r.arm, arm);
  }
  return armPairs([...byArm.keys()]).map(([a, b]) => compare(a, b, byArm.get(a)!, byArm.get(b)!, keys));
}

function compare(a: string, b: string, first: Map<string, boolean | null>, second: Map<string, boolean | null>, keys: Set<string>): PairedArms {
  const pairs: Pair[] = [];
  for (const k of keys) {
    const x = first.get(k);
    const y = second.get(k);
    if (typeof x === 'boolean' && typeof y === 'boolean') pairs.push([x, y]);
  }
  const unpaired = keys.size - pairs.length;
  if (pairs.length === 0) {
    return { a, b, pairs: 0, both: 0, a_only: 0, b_only: 0, neither: 0, rate_a: null, rate_b: null, difference: null, mcnemar: { p_value: null }, unpaired };
  }
  const t = exactMcNemar(pairs);
  const n = pairs.length;
  const rateA = (t.both_correct + t.only_first_correct) / n;
  const rateB = (t.both_correct + t.only_second_correct) / n;
  return {
    a,
    b,
    pairs: n,
    both: t.both_correct,
    a_only: t.only_first_correct,
    b_only: t.only_second_correct,
    neither: t.both_wrong,
    rate_a: rateA,
    rate_b: rateB,
    difference: rateB - rateA,
    mcnemar: { p_value: t.p_value },
    unpaired,
  };
}

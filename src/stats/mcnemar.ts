// Exact McNemar test of A8: two-sided binomial (p = 1/2) on the discordant pairs.
import { EmptyPairsError, InvalidArgumentError } from './errors.js';
import type { Pair } from './pairs.js';

/** The 2×2 paired table plus the p-value; fields are named as in the published qa.stats.json. */
export interface McNemarResult {
  readonly both_correct: number;
  readonly both_wrong: number;
  readonly only_first_correct: number;
  readonly only_second_correct: number;
  readonly p_value: number;
}

/** Σ_{k=0..m} C(n, k) as an exact bigint. */
function binomialTail(n: number, m: number): bigint {
  let term = 1n; // C(n, 0)
  let sum = 1n;
  for (let k = 0; k < m; k++) {
    term = (term * BigInt(n - k)) / BigInt(k + 1); // exact: C(n,k)·(n−k) is divisible by k+1
    sum += term;
  }
  return sum;
}

/** 2^−n as a double, exact down to the subnormal range (0 past 2^−1074, like Python's 0.5**n). */
function halfPow(n: number): number {
  let x = 1;
  for (let i = 0; i < n; i++) x *= 0.5;
  return x;
}

/**
 * Two-sided exact McNemar p from the discordant counts b (only first correct) and c (only second):
 * p = min(1, 2·Σ_{k≤min(b,c)} C(n,k)·0.5^n), n = b + c; p = 1 when n = 0.
 * As the reference, the integer sum is rounded to a double once and then scaled by 0.5^n (exact),
 * which is what makes the published values bit-identical. Where that sum exceeds the double range
 * (n ≳ 1024; Python raises OverflowError there) the top 64 bits are scaled instead (±1 ulp).
 */
export function mcnemarExactP(onlyFirst: number, onlySecond: number): number {
  for (const v of [onlyFirst, onlySecond]) {
    if (!Number.isSafeInteger(v) || v < 0) throw new InvalidArgumentError(`discordant counts must be non-negative integers, got ${v}`);
  }
  const n = onlyFirst + onlySecond;
  if (n === 0) return 1.0;
  const sum = binomialTail(n, Math.min(onlyFirst, onlySecond));
  const asDouble = Number(sum);
  let tail: number;
  if (Number.isFinite(asDouble)) {
    tail = asDouble * halfPow(n);
  } else {
    const drop = sum.toString(2).length - 64;
    tail = Number(sum >> BigInt(drop)) * halfPow(n - drop);
  }
  return Math.min(1.0, 2.0 * tail);
}

/** Counts the paired table and computes the exact McNemar p; throws EmptyPairsError on no pairs. */
export function exactMcNemar(pairs: readonly Pair[]): McNemarResult {
  if (pairs.length === 0) throw new EmptyPairsError('McNemar requires at least one pair');
  let both = 0;
  let neither = 0;
  let onlyFirst = 0;
  let onlySecond = 0;
  for (const [first, second] of pairs) {
    if (first && second) both++;
    else if (!first && !second) neither++;
    else if (first) onlyFirst++;
    else onlySecond++;
  }
  return {
    both_correct: both,
    both_wrong: neither,
    only_first_correct: onlyFirst,
    only_second_correct: onlySecond,
    p_value: mcnemarExactP(onlyFirst, onlySecond),
  };
}

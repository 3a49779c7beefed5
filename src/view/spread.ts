import type { ViewRow } from './rows.js';

/** Centre and spread of one measure over an arm's jobs. */
export interface Spread {
  n: number;
  mean: number | null;
  min: number | null;
  p25: number | null;
  median: number | null;
  p75: number | null;
  max: number | null;
}

/** What the chart compares for one arm. */
export interface ArmChart {
  arm: string;
  /** Graded jobs (pass, fail or error) and those that passed; rate null when none is graded. */
  correctness: { passed: number; graded: number; rate: number | null };
  tokens: Spread & { incomplete: number };
  seconds: Spread;
}

/** Linear interpolation between closest ranks, on sorted values. */
function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Spread of a list of values. */
export function spread(values: readonly number[]): Spread {
  const s = [...values].sort((a, b) => a - b);
  return {
    n: s.length,
    mean: s.length > 0 ? s.reduce((a, b) => a + b, 0) / s.length : null,
    min: s[0] ?? null,
    p25: quantile(s, 0.25),
    median: quantile(s, 0.5),
    p75: quantile(s, 0.75),
    max: s.at(-1) ?? null,
  };
}

/** One entry per arm, in the order given. */
export function chartOf(arms: readonly string[], rows: readonly ViewRow[]): ArmChart[] {
  return arms.map((arm) => {
    const mine = rows.filter((r) => r.arm === arm);
    const graded = mine.filter((r) => r.outcome === 'pass' || r.outcome === 'fail' || r.outcome === 'error');
    const passed = graded.filter((r) => r.outcome === 'pass').length;
    const tokens = mine.map((r) => r.tokens).filter((t): t is number => t !== null);
    const seconds = mine.map((r) => r.seconds).filter((t): t is number => t !== null);
    return {
      arm,
      correctness: { passed, graded: graded.length, rate: graded.length > 0 ? passed / graded.length : null },
      tokens: { ...spread(tokens), incomplete: mine.filter((r) => !r.tokens_complete).length },
      seconds: spread(seconds),
    };
  });
}

import type { TableRow } from './rows.js';

/** Jobs of an arm that passed one check, of those the check was applied to. */
export interface CheckRate {
  check: string;
  passed: number;
  total: number;
}

/** One bar of a histogram: scores in [lo, hi), the last bar closed. */
export interface Bin {
  lo: number;
  hi: number;
  count: number;
}

/** How an arm's jobs scored. */
export interface ArmDistribution {
  arm: string;
  /** Pass rate by check (the category a generic row carries: a dataset case's grader, a smoke task's checks), sorted by check id. */
  byCheck: CheckRate[];
  /** Jobs with a numeric score. */
  scored: number;
  /** Null when every score is 0 or 1: a pass rate then says all a histogram would. */
  histogram: Bin[] | null;
}

const BINS = 10;

/** Ten equal bins over [0, 1] when the scores are shares, else over their range. */
export function histogram(scores: readonly number[]): Bin[] {
  if (scores.length === 0) return [];
  let lo = Math.min(...scores);
  let hi = Math.max(...scores);
  if (lo >= 0 && hi <= 1) [lo, hi] = [0, 1];
  if (lo === hi) return [{ lo, hi, count: scores.length }];
  const width = (hi - lo) / BINS;
  const bins = Array.from({ length: BINS }, (_, i): Bin => ({ lo: lo + i * width, hi: i === BINS - 1 ? hi : lo + (i + 1) * width, count: 0 }));
  for (const s of scores) bins[Math.min(BINS - 1, Math.floor((s - lo) / width))]!.count += 1;
  return bins;
}

/** The score distribution of every arm, in the order given. */
export function distributionOf(arms: readonly string[], rows: readonly TableRow[]): ArmDistribution[] {
  return arms.map((arm) => {
    const mine = rows.filter((r) => r.arm === arm);
    const checks = new Map<string, CheckRate>();
    for (const r of mine) {
      for (const [check, passed] of Object.entries(r.checks ?? {})) {
        const c = checks.get(check) ?? { check, passed: 0, total: 0 };
        checks.set(check, c);
        c.total += 1;
        if (passed) c.passed += 1;
      }
    }
    const scores = mine.map((r) => r.score).filter((s): s is number => s !== null);
    const binary = scores.every((s) => s === 0 || s === 1);
    return {
      arm,
      byCheck: [...checks.values()].sort((a, b) => (a.check < b.check ? -1 : a.check > b.check ? 1 : 0)),
      scored: scores.length,
      histogram: binary ? null : histogram(scores),
    };
  });
}

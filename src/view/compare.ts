import type { Outcome, ViewRow } from './rows.js';
import type { SummaryView } from './summary-table.js';

/** One arm's side of a pair. */
export interface Side {
  job_id: string | null;
  outcome: Outcome;
  tokens: number | null;
  seconds: number | null;
}

/** One case (and repetition) under both arms. */
export interface PairRow {
  case: string;
  repetition: number | null;
  a: Side | null;
  b: Side | null;
  /** One arm passed and the other did not. */
  discordant: boolean;
}

/** The paired comparison of two arms. */
export interface CompareView {
  arms: string[];
  a: string;
  b: string;
  pairs: PairRow[];
  /** The 2×2 table of the complete pairs whose both sides are graded. */
  table: { both_pass: number; only_a: number; only_b: number; both_fail: number; incomplete: number };
  /** McNemar/bootstrap figures as the suite's summary has them (none: the suite has none). */
  stats: SummaryView['paired'];
}

const graded = (o: Outcome) => o === 'pass' || o === 'fail' || o === 'error';

/** Pairs the rows of arms `a` and `b` by case and repetition, sorted by case then repetition. */
export function compareArms(rows: readonly ViewRow[], arms: string[], a: string, b: string, stats: SummaryView['paired']): CompareView {
  const key = (r: ViewRow) => `${r.case_id}\u0000${r.repetition}`;
  const byKey = new Map<string, PairRow>();
  for (const r of rows) {
    if (r.arm !== a && r.arm !== b) continue;
    const p = byKey.get(key(r)) ?? { case: r.case_id, repetition: r.repetition, a: null, b: null, discordant: false };
    p[r.arm === a ? 'a' : 'b'] = { job_id: r.job_id, outcome: r.outcome, tokens: r.tokens, seconds: r.seconds };
    byKey.set(key(r), p);
  }
  const table = { both_pass: 0, only_a: 0, only_b: 0, both_fail: 0, incomplete: 0 };
  const pairs = [...byKey.values()].sort((x, y) => (x.case < y.case ? -1 : x.case > y.case ? 1 : (x.repetition ?? 0) - (y.repetition ?? 0)));
  for (const p of pairs) {
    if (!p.a || !p.b || !graded(p.a.outcome) || !graded(p.b.outcome)) {
      table.incomplete += 1;
      continue;
    }
    const pa = p.a.outcome === 'pass';
    const pb = p.b.outcome === 'pass';
    p.discordant = pa !== pb;
    if (pa && pb) table.both_pass += 1;
    else if (pa) table.only_a += 1;
    else if (pb) table.only_b += 1;
    else table.both_fail += 1;
  }
  return { arms, a, b, pairs, table, stats: stats.filter((blk) => ofArms(blk, a, b)) };
}

/**
 * A summary's block compares the two arms shown (either way round), or names no arms (a suite's
 * own statistics): with three arms, the blocks of the other pairs are not this comparison's.
 */
function ofArms(blk: SummaryView['paired'][number], a: string, b: string): boolean {
  const named = (k: string) => blk.leaves.find((l) => l.path === k)?.value;
  const x = named('a');
  const y = named('b');
  if (typeof x !== 'string' || typeof y !== 'string') return true;
  return (x === a && y === b) || (x === b && y === a);
}

// Paired binary outcomes: one (first arm correct, second arm correct) tuple per case. Both tests
// of A8 consume them, and the bootstrap depends on their order, so pairing is explicit here.
import { EmptyPairsError, PairingError } from './errors.js';

/** One case's outcome under both arms: [first arm correct, second arm correct]. */
export type Pair = readonly [first: boolean, second: boolean];

/** One graded row reduced to what pairing needs. */
export interface ArmOutcome {
  readonly caseId: string;
  readonly arm: string;
  readonly correct: boolean;
}

/** Cases sorted by id, with their pairs in the same order. */
export interface PairedCases {
  readonly caseIds: readonly string[];
  readonly pairs: readonly Pair[];
}

/** Orders strings by Unicode code point, as Python's sorted() does (JS's default sort uses UTF-16 units). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * Pairs per-arm outcomes by case id, sorted by id in code-point order (the published stats feed
 * the bootstrap in that order). Outcomes of other arms are ignored; a duplicate (case, arm) or a
 * case with only one of the two arms throws PairingError.
 */
export function pairOutcomes(outcomes: Iterable<ArmOutcome>, firstArm: string, secondArm: string): PairedCases {
  if (firstArm === secondArm) throw new PairingError(`cannot pair arm "${firstArm}" with itself`);
  const byCase = new Map<string, { first?: boolean; second?: boolean }>();
  for (const o of outcomes) {
    const slot = o.arm === firstArm ? 'first' : o.arm === secondArm ? 'second' : undefined;
    if (slot === undefined) continue;
    const entry = byCase.get(o.caseId) ?? {};
    if (entry[slot] !== undefined) throw new PairingError(`duplicate outcome for case "${o.caseId}", arm "${o.arm}"`);
    entry[slot] = o.correct;
    byCase.set(o.caseId, entry);
  }
  const caseIds = [...byCase.keys()].sort(compareCodePoints);
  const unpaired = caseIds.filter((id) => {
    const e = byCase.get(id)!;
    return e.first === undefined || e.second === undefined;
  });
  if (unpaired.length > 0) throw new PairingError(`cases missing one arm: ${unpaired.join(', ')}`);
  const pairs = caseIds.map((id): Pair => {
    const e = byCase.get(id)!;
    return [e.first!, e.second!];
  });
  return { caseIds, pairs };
}

/** Number of pairs whose first (or second) arm is correct. */
export function countCorrect(pairs: readonly Pair[], arm: 'first' | 'second'): number {
  const i = arm === 'first' ? 0 : 1;
  let n = 0;
  for (const p of pairs) if (p[i]) n++;
  return n;
}

/**
 * Accuracy of the second arm minus accuracy of the first: Σsecond/n − Σfirst/n, two separate
 * divisions then a subtraction, exactly as A8 (so 0.875 − 0.575 gives 0.30000000000000004).
 */
export function pairedDifference(pairs: readonly Pair[]): number {
  if (pairs.length === 0) throw new EmptyPairsError('the paired difference needs at least one pair');
  const n = pairs.length;
  return countCorrect(pairs, 'second') / n - countCorrect(pairs, 'first') / n;
}

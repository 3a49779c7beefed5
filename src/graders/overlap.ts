// The blind deterministic grader `deterministic-overlap-v1` (token overlap, with exact, substring and
// numeric rules; a study's grader and a dataset grader alike): a pure function of the prediction and
// the reference text, nothing else (no policy, case or question).
import { normalize, STOPWORDS } from './normalize.js';

/** The overlap grader's name and version, recorded as its check id. */
export const GRADER_VERSION = 'deterministic-overlap-v1';

/** The rule that decided a grade, in the order the rules are tried. */
export type GradeRule =
  | 'empty-prediction'
  | 'insufficient'
  | 'exact'
  | 'substring'
  | 'numeric-range'
  | 'numeric-conflict'
  | 'overlap-accept'
  | 'overlap-reject';

/** One overlap grade: the verdict and the rule that gave it. */
export interface Grade {
  readonly correct: boolean;
  readonly rule: GradeRule;
}

/** The reference normalizes to no tokens: nothing can be graded against it. */
export class EmptyReferenceError extends Error {
  override name = 'EmptyReferenceError';
}

/** Minimum share of the content tokens, on each side, that must overlap for `overlap-accept`. */
const OVERLAP_THRESHOLD = 0.6;
const RANGE = /\branging from (\d+)(?:\s\S+)*?\sto (\d+)\b/;

/** True when `needle` occurs as a contiguous run of tokens in `hay`. */
function containsRun(hay: readonly string[], needle: readonly string[]): boolean {
  for (let i = 0; i + needle.length <= hay.length; i++) {
    let j = 0;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return true;
  }
  return false;
}

/** The all-digit tokens as integers (exact: bigint, so `07` and `7` are the same number). */
function numbers(tokens: readonly string[]): Set<bigint> {
  return new Set(tokens.filter((t) => /^[0-9]+$/.test(t)).map((t) => BigInt(t)));
}

function sameSet<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean {
  return a.size === b.size && [...a].every((v) => b.has(v));
}

/**
 * Grades one prediction against its reference, trying in order: empty prediction, the lone
 * `insufficient` token, exact token equality, one token list contained contiguously in the other,
 * a number inside the reference's "ranging from X … to Y", conflicting numbers, and finally the
 * content-token overlap (≥ 0.6 of each side). Throws EmptyReferenceError when the reference has no tokens.
 */
export function gradeAnswer(prediction: string, reference: string): Grade {
  const ref = normalize(reference);
  if (ref.length === 0) throw new EmptyReferenceError(`reference ${JSON.stringify(reference)} has no tokens after normalization`);
  const pred = normalize(prediction);
  if (pred.length === 0) return { correct: false, rule: 'empty-prediction' };
  if (pred.length === 1 && pred[0] === 'insufficient') return { correct: false, rule: 'insufficient' };
  if (pred.length === ref.length && pred.every((t, i) => t === ref[i])) return { correct: true, rule: 'exact' };
  if (containsRun(ref, pred) || containsRun(pred, ref)) return { correct: true, rule: 'substring' };

  const p = numbers(pred);
  const r = numbers(ref);
  const range = RANGE.exec(ref.join(' '));
  if (range && p.size > 0) {
    const a = BigInt(range[1]!);
    const b = BigInt(range[2]!);
    const [lo, hi] = a <= b ? [a, b] : [b, a];
    if ([...p].every((n) => n >= lo && n <= hi)) return { correct: true, rule: 'numeric-range' };
  }
  if (p.size > 0 && r.size > 0 && !sameSet(p, r)) return { correct: false, rule: 'numeric-conflict' };

  const cp = new Set(pred.filter((t) => !STOPWORDS.has(t)));
  const cr = new Set(ref.filter((t) => !STOPWORDS.has(t)));
  if (cp.size === 0 || cr.size === 0) return { correct: false, rule: 'overlap-reject' };
  let shared = 0;
  for (const t of cp) if (cr.has(t)) shared++;
  const accept = shared / cp.size >= OVERLAP_THRESHOLD && shared / cr.size >= OVERLAP_THRESHOLD;
  return { correct: accept, rule: accept ? 'overlap-accept' : 'overlap-reject' };
}

// Edit-distance scorers: `levenshtein` (at most N edits) and `similar` (a similarity ratio at least a
// threshold), comparing the trimmed output with the trimmed value (given, else the case's `expected`).
// Both count Unicode code points after NFC normalisation, so "é" is one character whether it was
// typed composed or as e + combining accent, and "👍" is one, not two UTF-16 units. Case is kept.
import { preview } from '../sandbox/json-equal.js';
import { fixedText, isPlainObject, knownOptions, numberOption, ScorerOptionError, shown, textScorer } from './kit.js';
import type { Scorer } from './types.js';

function codePoints(s: string): string[] {
  return [...s.normalize('NFC')];
}

/** The Levenshtein distance of two texts: the fewest insertions, deletions and substitutions of code points (after NFC) turning one into the other. */
export function levenshteinDistance(a: string, b: string): number {
  const x = codePoints(a);
  const y = codePoints(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  // Two rows of the classic dynamic programme: prev[j] is the distance of x[0..i) and y[0..j).
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  let cur = new Array<number>(y.length + 1).fill(0);
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    for (let j = 1; j <= y.length; j++) {
      const substitute = prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1);
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, substitute);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

/**
 * The normalised Levenshtein ratio: 1 − distance / max(length a, length b), lengths in code points
 * after NFC; 1 for two empty texts. 1 is identical, 0 shares nothing position by position. (Not
 * difflib's ratio, nor the Indel ratio 1 − indel / (|a| + |b|), nor an embedding similarity.)
 */
export function similarityRatio(a: string, b: string): number {
  const longest = Math.max(codePoints(a).length, codePoints(b).length);
  return longest === 0 ? 1 : 1 - levenshteinDistance(a, b) / longest;
}

/** `levenshtein`'s one option: the most edits that still pass. */
export interface LevenshteinOptions {
  max: number;
}

/** The trimmed output is at most `max` edits from the value, else from the case's `expected`. `levenshtein('Paris', { max: 1 })`, `levenshtein({ max: 2 })`. */
export function levenshtein(value: string | number | LevenshteinOptions, options?: LevenshteinOptions): Scorer {
  const [fixed, o] = valueAndOptions('levenshtein', value, options);
  if (o === undefined) throw new ScorerOptionError('levenshtein: give the most edits that pass: levenshtein({ max: 2 }) or levenshtein(value, { max: 2 })');
  knownOptions('levenshtein', o, ['max']);
  const max = numberOption('levenshtein', 'max', o.max, 0, Number.POSITIVE_INFINITY);
  if (!Number.isInteger(max)) throw new ScorerOptionError(`levenshtein: max must be a whole number of edits, got ${max}`);
  return textScorer('levenshtein', fixed, (output, want) => {
    const w = want.trim();
    const d = levenshteinDistance(output.trim(), w);
    return d <= max
      ? { passed: true, detail: `edit distance ${d} to ${preview(w)} (at most ${max})` }
      : { passed: false, detail: `expected an edit distance of at most ${max} to ${preview(w)}, got ${d} for ${preview(output.trim())}` };
  });
}

/** `similar`'s one option: the least similarity ratio that passes (default 0.8). */
export interface SimilarOptions {
  threshold?: number;
}

/** The default threshold: a ratio of 0.8 allows one edit in five characters. */
export const DEFAULT_SIMILARITY = 0.8;

/**
 * The trimmed output's similarity ratio (`similarityRatio`) to the value, else to the case's
 * `expected`, is at least the threshold; the verdict's score is the ratio.
 * `similar('Paris')`, `similar({ threshold: 0.9 })`.
 */
export function similar(value?: string | number | SimilarOptions, options?: SimilarOptions): Scorer {
  const [fixed, o = {}] = valueAndOptions('similar', value, options);
  knownOptions('similar', o, ['threshold']);
  const threshold = o.threshold === undefined ? DEFAULT_SIMILARITY : numberOption('similar', 'threshold', o.threshold, 0, 1);
  return textScorer('similar', fixed, (output, want) => {
    const w = want.trim();
    const r = similarityRatio(output.trim(), w);
    return r >= threshold
      ? { passed: true, detail: `similarity ${shown(r, 4)} to ${preview(w)} (at least ${threshold})`, score: r }
      : {
          passed: false,
          detail: `expected a similarity of at least ${threshold} to ${preview(w)}, got ${shown(r, 4)} for ${preview(output.trim())}`,
          score: r,
        };
  });
}

/** `(value, options)` or `(options)`: the checked text value (null: the case's `expected`) and the options. */
function valueAndOptions<O extends object>(
  scorer: string,
  value: string | number | O | undefined,
  options: O | undefined,
): [string | null, (O & Record<string, unknown>) | undefined] {
  if (isPlainObject(value)) {
    if (options !== undefined) throw new ScorerOptionError(`${scorer}: give the options once: ${scorer}(value, options) or ${scorer}(options)`);
    return [null, value as O & Record<string, unknown>];
  }
  if (options !== undefined && !isPlainObject(options)) throw new ScorerOptionError(`${scorer}: options must be an object, got ${preview(options, 60)}`);
  return [fixedText(scorer, value as string | number | undefined), options as (O & Record<string, unknown>) | undefined];
}

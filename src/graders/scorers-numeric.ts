// The numeric scorer: a number read from the output text, within a tolerance of the value (given to
// the scorer, else the case's `expected`). How a number is read is one rule, `numbersIn` below;
// a pure function of the output and the value, blind to the arm.
import { preview } from '../sandbox/json-equal.js';
import { isPlainObject, knownOptions, numberOption, ScorerOptionError, shownValue } from './kit.js';
import type { Scorer, Verdict } from './types.js';

/** Tolerances (either, both or none: none is exact equality) and which number of the output counts. */
export interface NumericOptions {
  /** Absolute tolerance: passes when |got − want| ≤ abs. */
  abs?: number;
  /** Relative tolerance, a fraction of |want| (0.02 is 2%): passes when |got − want| ≤ rel·|want| (so against 0 only `abs` allows a difference). With `abs`, the larger of the two. */
  rel?: number;
  /** Which number of the output is the answer: the last (default; models reason first, then answer), the first, or the only one. */
  pick?: 'last' | 'first' | 'only';
}

/**
 * A number in text: an optional sign (+, -, or the minus sign U+2212), then digits with an optional
 * decimal part after a point (`3`, `3.14`, `.5`; a comma is a thousands separator only between
 * groups of three digits, `1,234,567`), then an optional exponent (`1e-3`). A number glued to a
 * letter, a digit, `_` or `.` before it is part of a word, not a number (`CO2`, `v2`, the `.3` of
 * `1.2.3`); a `-` after a digit is a hyphen (`2024-05` reads 2024 and 5). Units and `%` after it are
 * not applied (`50%` reads 50). `NaN`, `Infinity` and `∞` are not numbers.
 */
const NUMBER = /(?<![\p{L}\p{N}_.])(?:[-+\u2212](?=\.?\d))?(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?/gu;

/** One number read from text: as written, and its value (±Infinity when it overflows a double). */
export interface NumberInText {
  text: string;
  value: number;
}

/** The numbers in `text`, in order, by the rule of NUMBER above. */
export function numbersIn(text: string): NumberInText[] {
  return [...text.matchAll(NUMBER)].map((m) => ({ text: m[0], value: Number(m[0].replace(/,/g, '').replace('\u2212', '-')) }));
}

/**
 * The output's number (see NumericOptions.pick) is within the tolerance of the value, else of the
 * case's `expected` (a finite number, or a string that is one number, like "3.14").
 * `numeric(42)`, `numeric(3.14159, { abs: 0.01 })`, `numeric({ rel: 0.02 })`.
 */
export function numeric(value?: number | string | NumericOptions, options?: NumericOptions): Scorer {
  const name = 'numeric';
  if (isPlainObject(value)) {
    if (options !== undefined) throw new ScorerOptionError(`${name}: give the options once: numeric(value, options) or numeric(options)`);
    return numeric(undefined, value as NumericOptions);
  }
  const o = checkOptions(options ?? {});
  let fixed: number | null = null;
  if (value !== undefined) {
    fixed = asNumber(value);
    if (fixed === null) throw new ScorerOptionError(`${name}: the value must be a finite number or a string holding one, got ${shownValue(value)}`);
  }
  return {
    name,
    problem(expected) {
      if (fixed !== null) return null;
      if (expected === undefined) return 'has no "expected"';
      return asNumber(expected) === null
        ? `"expected" must be a finite number (or a string holding one) for grader ${name}, got ${shownValue(expected)}`
        : null;
    },
    score: (output, expected) => gradeNumber(output, fixed ?? asNumber(expected) ?? Number.NaN, o),
  };
}

interface Checked {
  abs: number | null;
  rel: number | null;
  pick: 'last' | 'first' | 'only';
}

function checkOptions(options: NumericOptions): Checked {
  if (!isPlainObject(options)) throw new ScorerOptionError(`numeric: options must be an object, got ${preview(options, 60)}`);
  knownOptions('numeric', options, ['abs', 'rel', 'pick']);
  const pick = options.pick ?? 'last';
  if (pick !== 'last' && pick !== 'first' && pick !== 'only')
    throw new ScorerOptionError(`numeric: pick must be "last", "first" or "only", got ${preview(pick, 60)}`);
  return {
    abs: options.abs === undefined ? null : numberOption('numeric', 'abs', options.abs, 0, Number.POSITIVE_INFINITY),
    rel: options.rel === undefined ? null : numberOption('numeric', 'rel', options.rel, 0, Number.POSITIVE_INFINITY),
    pick,
  };
}

/** A finite number, or a string that is exactly one number by the NUMBER rule; else null. */
function asNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const found = numbersIn(v.trim());
  const only = found.length === 1 ? found[0]! : null;
  return only !== null && only.text === v.trim() && Number.isFinite(only.value) ? only.value : null;
}

function gradeNumber(output: string, want: number, o: Checked): Verdict {
  const found = numbersIn(output);
  if (found.length === 0) return { passed: false, detail: `expected the number ${want}, found no number in ${preview(output)}` };
  if (o.pick === 'only' && found.length > 1) return { passed: false, detail: `expected exactly one number, found ${found.length} in ${preview(output)}` };
  const n = o.pick === 'first' ? found[0]! : found[found.length - 1]!;
  if (!Number.isFinite(n.value)) return { passed: false, detail: `the output's number ${n.text} is out of range` };
  const got = n.value;
  const diff = Math.abs(got - want);
  const tol = Math.max(o.abs ?? 0, (o.rel ?? 0) * Math.abs(want));
  // Decimal tolerances are not exact in binary (1.1 − 1 is 0.10000000000000009): a few units in the
  // last place of slack, so a difference written equal to the tolerance passes. None when exact.
  const slack = tol > 0 ? 8 * Number.EPSILON * Math.max(Math.abs(got), Math.abs(want)) : 0;
  const passed = diff <= tol + slack;
  const off = precise(diff);
  if (o.abs === null && o.rel === null)
    return passed ? { passed, detail: `output number ${got} equals ${want}` } : { passed, detail: `expected exactly ${want}, got ${got} (off by ${off})` };
  const band = `± ${toleranceText(o, tol)}`;
  return passed
    ? { passed, detail: `output number ${got} is off by ${off}, within ${band} of ${want}` }
    : { passed, detail: `expected ${want} ${band}, got ${got} (off by ${off})` };
}

/** The tolerance as a reason shows it: `0.01`, `2 (2%)`, `2 (the larger of 0.5 and 2%)`. */
function toleranceText(o: Checked, tol: number): string {
  if (o.rel === null) return String(o.abs);
  const pct = `${precise(o.rel * 100)}%`;
  return o.abs === null ? `${precise(tol)} (${pct})` : `${precise(tol)} (the larger of ${o.abs} and ${pct})`;
}

/** Six significant digits, without float noise: 0.05841000000000003 shows as 0.05841. */
function precise(n: number): string {
  return String(Number(n.toPrecision(6)));
}

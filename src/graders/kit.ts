// What the scorers share: how `expected` (or a value given to the scorer) is read as text or JSON,
// how a reason is worded, and the error a scorer built with a bad argument throws at once.
import { UserError } from '../core/errors.js';
import { preview } from '../sandbox/json-equal.js';
import type { Scorer, Verdict } from './types.js';

/** A scorer built with an argument it cannot use (a bad value, flag, tolerance or weight): refused when the suite is built. */
export class ScorerOptionError extends UserError {
  override name = 'ScorerOptionError';
}

/** `expected` as the text a text scorer compares with, or null when it is neither a string nor a finite number. */
export function expectedText(expected: unknown): string | null {
  if (typeof expected === 'string') return expected;
  if (typeof expected === 'number' && Number.isFinite(expected)) return String(expected);
  return null;
}

/** Models often wrap JSON in a Markdown fence; the fence is not part of the answer. */
export function unfence(text: string): string {
  const m = /^\s*```[A-Za-z]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

/** The output parsed as JSON (one ``` fence allowed around it), or `ok: false` when it is not JSON. */
export function parseJsonOutput(output: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(unfence(output)) };
  } catch {
    // The parser's own message differs between Node versions; a recorded detail must not.
    return { ok: false };
  }
}

/** Whether `v` is a JSON value: null, a boolean, a finite number, a string, or arrays and plain objects of them. */
export function isJsonValue(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(isJsonValue);
  if (typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && Object.values(v).every(isJsonValue);
}

/** A scorer of text against a text value: the one given when it was built, else the case's `expected`. */
export function textScorer(name: string, fixed: string | null, score: (output: string, want: string) => Verdict): Scorer {
  return {
    name,
    problem(expected) {
      if (fixed !== null) return null;
      if (expected === undefined) return 'has no "expected"';
      return expectedText(expected) === null ? `"expected" must be a string (or number) for grader ${name}, got ${preview(expected, 60)}` : null;
    },
    score: (output, expected) => score(output, fixed ?? expectedText(expected) ?? ''),
  };
}

/** The value a text scorer was built with, checked: a non-empty string or a finite number; null when none was given. */
export function fixedText(scorer: string, value: string | number | undefined): string | null {
  if (value === undefined) return null;
  const text = expectedText(value);
  if (text === null || text === '') throw new ScorerOptionError(`${scorer}: the value must be a non-empty string or a finite number, got ${shownValue(value)}`);
  return text;
}

export function verdict(passed: boolean, ok: string, failed: () => string): Verdict {
  return { passed, detail: passed ? ok : failed() };
}

/** The common failure reason: what was wanted, and a preview of what the output was. */
export function got(want: string, output: string): string {
  return `expected ${preview(want)}, got ${preview(output)}`;
}

/** A number for a reason text: at most `digits` decimals, no trailing zeros, no float noise (0.1 + 0.2 shows as 0.3). */
export function shown(n: number, digits = 3): string {
  return String(Number(n.toFixed(digits)));
}

/** A value as a reason shows it: a preview of its JSON, but numbers as JavaScript writes them (NaN, Infinity), not as JSON would (null). */
export function shownValue(v: unknown, max = 60): string {
  return typeof v === 'number' ? String(v) : preview(v, max);
}

/** Whether `v` is a plain options object (not an array, a RegExp, a schema or null). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An option that must be a finite number in [lo, hi]; throws ScorerOptionError naming the scorer and the option. */
export function numberOption(scorer: string, option: string, v: unknown, lo: number, hi: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
    const range = hi === Number.POSITIVE_INFINITY ? `at least ${lo}` : `between ${lo} and ${hi}`;
    throw new ScorerOptionError(`${scorer}: ${option} must be a number ${range}, got ${shownValue(v)}`);
  }
  return v;
}

/** Refuses option keys a scorer does not know, so a misspelt option is not silently ignored. */
export function knownOptions(scorer: string, options: Record<string, unknown>, known: readonly string[]): void {
  const extra = Object.keys(options)
    .filter((k) => !known.includes(k))
    .sort();
  if (extra.length > 0) throw new ScorerOptionError(`${scorer}: unknown option ${extra.map((k) => JSON.stringify(k)).join(', ')} (known: ${known.join(', ')})`);
}

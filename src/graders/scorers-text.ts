// The text scorers: equality, substring (with and without case) and pattern, each comparing the
// output with a value given when the scorer is built or, without one, with the case's `expected`.
// Pure functions of the output and that value, blind to the arm.
import { jsonEqual, preview } from '../sandbox/json-equal.js';
import {
  expectedText,
  fixedText,
  got,
  isJsonValue,
  isPlainObject,
  knownOptions,
  parseJsonOutput,
  ScorerOptionError,
  shownValue,
  textScorer,
  verdict,
} from './kit.js';
import type { Scorer, Verdict } from './types.js';

/**
 * The output equals the value (else the case's `expected`). A string or a number is compared as
 * text, both sides trimmed and case kept (`4` is the text "4"); any other JSON value (an object, an
 * array, a boolean, null) is compared as JSON: the output (one ``` fence allowed) parsed and deep-equal.
 */
export function equals(value?: unknown): Scorer {
  const name = 'equals';
  if (value !== undefined && !isJsonValue(value))
    throw new ScorerOptionError(`${name}: the value must be a string, a number or a JSON value, got ${shownValue(value)}`);
  return {
    name,
    problem(expected) {
      if (value !== undefined) return null;
      if (expected === undefined) return 'has no "expected"';
      return isJsonValue(expected) ? null : `"expected" must be a string, a number or a JSON value for grader ${name}, got ${shownValue(expected)}`;
    },
    score: (output, expected) => gradeEquals(output, value === undefined ? expected : value),
  };
}

function gradeEquals(output: string, want: unknown): Verdict {
  const text = expectedText(want);
  if (text !== null) return verdict(output.trim() === text.trim(), `output equals ${preview(text.trim())}`, () => got(text.trim(), output));
  const parsed = parseJsonOutput(output);
  if (!parsed.ok) return { passed: false, detail: `expected the JSON value ${preview(want)}, got non-JSON ${preview(output)}` };
  return jsonEqual(parsed.value, want)
    ? { passed: true, detail: `output equals ${preview(want)} as JSON` }
    : { passed: false, detail: `expected ${preview(want)}, got ${preview(parsed.value)}` };
}

/** The output contains the value (else the case's `expected`), case-sensitive. */
export function contains(value?: string | number): Scorer {
  const fixed = fixedText('contains', value);
  // Without a value the reasons keep their first wording: recorded runs (and their replays) carry it.
  if (fixed === null)
    return textScorer('contains', null, (output, want) => verdict(output.includes(want), 'output contains expected', () => got(want, output)));
  return textScorer('contains', fixed, (output, want) =>
    verdict(output.includes(want), `output contains ${preview(want)}`, () => `expected the output to contain ${preview(want)}, got ${preview(output)}`),
  );
}

/** The output contains the value (else the case's `expected`), letter case ignored on both sides (`toLowerCase`, locale-independent). */
export function icontains(value?: string | number): Scorer {
  return textScorer('icontains', fixedText('icontains', value), (output, want) =>
    verdict(
      output.toLowerCase().includes(want.toLowerCase()),
      `output contains ${preview(want)} (case ignored)`,
      () => `expected the output to contain ${preview(want)} (case ignored), got ${preview(output)}`,
    ),
  );
}

/** What `regex` takes: flags for the case's pattern (the first form), a fixed pattern, or both as options. */
export type RegexArgument = string | RegExp | { pattern?: string | RegExp; flags?: string };

const FLAG_LETTERS = 'dgimsuvy';

/**
 * The output matches a JavaScript pattern: `regex()` and `regex('i')` take the pattern from the
 * case's `expected` (with those flags); `regex(/Paris/i)` or `regex({ pattern: 'Paris', flags: 'i' })`
 * match a fixed one. The pattern is not anchored; a fresh RegExp per output, so `g` and `y` keep no state.
 */
export function regex(arg?: RegexArgument): Scorer {
  const { pattern, flags } = regexArgument(arg);
  if (pattern === null) return expectedRegex(flags);
  const shown = `/${pattern}/${flags}`;
  return {
    name: 'regex',
    problem: () => null,
    score: (output) =>
      verdict(new RegExp(pattern, flags).test(output), `output matches ${shown}`, () => `expected a match for ${shown}, got ${preview(output)}`),
  };
}

function regexArgument(arg: RegexArgument | undefined): { pattern: string | null; flags: string } {
  if (arg === undefined) return { pattern: null, flags: '' };
  if (typeof arg === 'string') {
    checkFlags(
      arg,
      `regex: ${JSON.stringify(arg)} is not a set of flags (distinct letters of "${FLAG_LETTERS}"); a fixed pattern is given as regex(/…/) or regex({ pattern: "…" })`,
    );
    return { pattern: null, flags: arg };
  }
  if (arg instanceof RegExp) return { pattern: arg.source, flags: arg.flags };
  if (!isPlainObject(arg)) throw new ScorerOptionError(`regex: the argument must be flags, a RegExp or { pattern, flags }, got ${preview(arg, 60)}`);
  knownOptions('regex', arg, ['pattern', 'flags']);
  const { pattern, flags } = arg;
  if (flags !== undefined && typeof flags !== 'string') throw new ScorerOptionError(`regex: flags must be a string, got ${preview(flags, 60)}`);
  if (flags !== undefined) checkFlags(flags, `regex: flags ${JSON.stringify(flags)} must be distinct letters of "${FLAG_LETTERS}"`);
  if (pattern === undefined) return { pattern: null, flags: flags ?? '' };
  if (pattern instanceof RegExp) {
    if (flags !== undefined) throw new ScorerOptionError('regex: give the flags in the RegExp or in "flags", not both');
    return { pattern: pattern.source, flags: pattern.flags };
  }
  if (typeof pattern !== 'string' || pattern === '')
    throw new ScorerOptionError(`regex: pattern must be a non-empty string or a RegExp, got ${preview(pattern, 60)}`);
  try {
    new RegExp(pattern, flags ?? '');
  } catch (err) {
    throw new ScorerOptionError(`regex: pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`);
  }
  return { pattern, flags: flags ?? '' };
}

function checkFlags(flags: string, message: string): void {
  const letters = [...flags];
  if (!letters.every((c) => FLAG_LETTERS.includes(c)) || new Set(letters).size !== letters.length) throw new ScorerOptionError(message);
  // Some valid letters exclude each other (`u` and `v`): RegExp itself says which.
  try {
    new RegExp('', flags);
  } catch {
    throw new ScorerOptionError(message);
  }
}

// The case's pattern: the reasons keep their first wording (recorded runs carry it).
function expectedRegex(flags: string): Scorer {
  const base = textScorer('regex', null, (output, want) =>
    verdict(new RegExp(want, flags).test(output), `output matches /${want}/${flags}`, () => got(want, output)),
  );
  return {
    ...base,
    problem(expected) {
      const p = base.problem(expected);
      if (p !== null) return p;
      try {
        new RegExp(expectedText(expected)!, flags);
        return null;
      } catch (err) {
        return `"expected" is not a valid regular expression: ${(err as Error).message}`;
      }
    },
  };
}

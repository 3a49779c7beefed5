// The `javascript` scorer: the suite's own function decides. It sees the output, the case's
// `expected` and its input, never the arm. A function that throws, or answers in a shape this file
// does not know, gives an `error` verdict (could not decide), never a pass. Replay grades again with
// the same function, so it must be pure: no clock, no randomness, no I/O.
import { preview } from '../sandbox/json-equal.js';
import { isPlainObject, knownOptions, numberOption, ScorerOptionError, shown } from './kit.js';
import type { Scorer, Verdict } from './types.js';

/** What a check function may answer: a verdict, a score in [0, 1], or a verdict with a score and its reason. */
export type JavascriptResult = boolean | number | { pass: boolean; score?: number; reason?: string };

/** A check function: synchronous, given the output and what the case says. */
export type JavascriptCheck = (output: string, context: { expected: unknown; input: unknown }) => JavascriptResult;

export interface JavascriptOptions {
  /** The check id (default `javascript`), so two functions of one suite record apart. */
  name?: string;
  /** A number answer passes when it is at least this; without one, when it is above 0. */
  threshold?: number;
}

/** A check decided by `fn`: `javascript((out) => out.length < 200)`, `javascript((out, { expected }) => out.endsWith(String(expected)))`. */
export function javascript(fn: JavascriptCheck, options: JavascriptOptions = {}): Scorer {
  if (typeof fn !== 'function') throw new ScorerOptionError(`javascript: the check must be a function, got ${preview(fn, 60)}`);
  if (!isPlainObject(options)) throw new ScorerOptionError(`javascript: options must be an object, got ${preview(options, 60)}`);
  knownOptions('javascript', options, ['name', 'threshold']);
  const name = options.name ?? 'javascript';
  if (typeof name !== 'string' || name.trim() === '') throw new ScorerOptionError(`javascript: name must be a non-empty string, got ${preview(name, 60)}`);
  const threshold = options.threshold === undefined ? null : numberOption('javascript', 'threshold', options.threshold, 0, 1);
  return {
    name,
    // The function decides what it needs of `expected`; it sees `undefined` when the case gives none.
    problem: () => null,
    score(output, expected, context) {
      let result: unknown;
      try {
        result = fn(output, { expected, input: context?.input });
      } catch (err) {
        return gradingError(`the function threw: ${oneLine(err)}`);
      }
      return verdictOf(result, threshold);
    },
  };
}

function verdictOf(result: unknown, threshold: number | null): Verdict {
  if (typeof result === 'boolean') return { passed: result, detail: `the function returned ${result}` };
  if (typeof result === 'number') {
    const bad = scoreProblem(result);
    if (bad !== null) return gradingError(`the function returned ${bad}`);
    const passed = threshold === null ? result > 0 : result >= threshold;
    const rule = threshold === null ? 'above 0' : `at least ${threshold}`;
    return {
      passed,
      detail: passed ? `the function returned ${shown(result, 4)} (${rule})` : `the function returned ${shown(result, 4)}, not ${rule}`,
      score: result,
    };
  }
  if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function')
    return gradingError('the function returned a Promise: a javascript() check must be synchronous');
  if (!isPlainObject(result)) return gradingError(`the function returned ${preview(result, 60)}, not a boolean, a number or { pass, score?, reason? }`);
  const extra = Object.keys(result)
    .filter((k) => k !== 'pass' && k !== 'score' && k !== 'reason')
    .sort();
  if (extra.length > 0) return gradingError(`the function's result has unexpected key ${extra.map((k) => JSON.stringify(k)).join(', ')}`);
  const { pass, score, reason } = result;
  if (typeof pass !== 'boolean') return gradingError(`the function's "pass" is ${preview(pass, 60)}, not a boolean`);
  if (score !== undefined && (typeof score !== 'number' || scoreProblem(score) !== null))
    return gradingError(`the function's "score" is ${typeof score === 'number' ? String(score) : preview(score, 60)}, not a number between 0 and 1`);
  if (reason !== undefined && typeof reason !== 'string') return gradingError(`the function's "reason" is ${preview(reason, 60)}, not a string`);
  const detail = reason !== undefined && reason.trim() !== '' ? oneLine(reason) : `the function returned ${pass ? 'pass' : 'fail'}`;
  return score === undefined ? { passed: pass, detail } : { passed: pass, detail, score };
}

/** Why a number is not a score (NaN, outside [0, 1]), or null. */
function scoreProblem(n: number): string | null {
  return Number.isFinite(n) && n >= 0 && n <= 1 ? null : `${n}, not a score between 0 and 1`;
}

function gradingError(why: string): Verdict {
  return { passed: false, detail: `grading error: ${why}`, error: true };
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.replace(/\s+/g, ' ').trim();
}

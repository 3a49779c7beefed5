// The deterministic scorers: each a pure function of the model's output and the case's `expected`,
// blind to the arm. Numbers are accepted where text is expected: `"expected": 4` means the text "4".
import { jsonEqual, preview } from '../sandbox/json-equal.js';
import { normalize } from './normalize.js';
import { gradeAnswer, GRADER_VERSION } from './overlap.js';
import type { Scorer, Verdict } from './types.js';

/** The output, trimmed, equals expected (trimmed). */
export function exact(): Scorer {
  return textScorer('exact', (output, want) => verdict(output.trim() === want.trim(), 'output equals expected', () => got(want, output)));
}

/** The output contains expected (case-sensitive). */
export function contains(): Scorer {
  return textScorer('contains', (output, want) => verdict(output.includes(want), 'output contains expected', () => got(want, output)));
}

/** expected is a JavaScript pattern (flags from "imsu") the output must match. */
export function regex(flags = ''): Scorer {
  const base = textScorer('regex', (output, want) =>
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

/** The output parsed as JSON (a ``` fence allowed); the value at `path` (keys, array indices) deep-equals expected. */
export function jsonField(path: readonly string[] | string = []): Scorer {
  const keys = typeof path === 'string' ? (path === '' ? [] : path.split('.')) : [...path];
  return {
    name: 'json-field',
    problem: (expected) => (expected === undefined ? 'has no "expected"' : null),
    score: (output, expected) => gradeJsonField(keys, output, expected),
  };
}

/** The blind token-overlap grader `deterministic-overlap-v1` (the prediction against the reference text only); the verdict names its rule. */
export function overlap(): Scorer {
  const base = textScorer(GRADER_VERSION, (output, want) => {
    const g = gradeAnswer(output, want);
    return { passed: g.correct, detail: `rule ${g.rule}` };
  });
  return {
    ...base,
    problem(expected) {
      const p = base.problem(expected);
      if (p !== null) return p;
      return normalize(expectedText(expected)!).length === 0 ? `"expected" has no tokens for ${GRADER_VERSION}` : null;
    },
  };
}

/** `expected` as the text a text scorer compares with, or null when it is neither a string nor a finite number. */
export function expectedText(expected: unknown): string | null {
  if (typeof expected === 'string') return expected;
  if (typeof expected === 'number' && Number.isFinite(expected)) return String(expected);
  return null;
}

function textScorer(name: string, score: (output: string, want: string) => Verdict): Scorer {
  return {
    name,
    problem(expected) {
      if (expected === undefined) return 'has no "expected"';
      return expectedText(expected) === null ? `"expected" must be a string (or number) for grader ${name}, got ${preview(expected, 60)}` : null;
    },
    score: (output, expected) => score(output, expectedText(expected) ?? ''),
  };
}

function verdict(passed: boolean, ok: string, failed: () => string): Verdict {
  return { passed, detail: passed ? ok : failed() };
}

function got(want: string, output: string): string {
  return `expected ${preview(want)}, got ${preview(output)}`;
}

function gradeJsonField(path: readonly string[], output: string, expected: unknown): Verdict {
  const where = path.length === 0 ? 'the output' : `field ${path.join('.')}`;
  let value: unknown;
  try {
    value = JSON.parse(unfence(output));
  } catch {
    return { passed: false, detail: `output is not JSON: ${preview(output)}` };
  }
  for (const key of path) {
    const found = step(value, key);
    if (!found.ok) return { passed: false, detail: `${where} is missing in ${preview(value)}` };
    value = found.value;
  }
  return jsonEqual(value, expected)
    ? { passed: true, detail: `${where} equals expected` }
    : { passed: false, detail: `${where}: expected ${preview(expected)}, got ${preview(value)}` };
}

function step(value: unknown, key: string): { ok: true; value: unknown } | { ok: false } {
  if (Array.isArray(value)) {
    const i = /^\d+$/.test(key) ? Number(key) : -1;
    return i >= 0 && i < value.length ? { ok: true, value: value[i] } : { ok: false };
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) return { ok: true, value: (value as Record<string, unknown>)[key] };
  return { ok: false };
}

/** Models often wrap JSON in a Markdown fence; the fence is not part of the answer. */
export function unfence(text: string): string {
  const m = /^\s*```[A-Za-z]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

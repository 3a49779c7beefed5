// The first deterministic scorers (exact, json-field, the overlap grader): each a pure function of the
// model's output and the case's `expected`, blind to the arm. Numbers are accepted where text is
// expected: `"expected": 4` means the text "4". The text scorers are in scorers-text.ts.
import { jsonEqual, preview } from '../sandbox/json-equal.js';
import { expectedText, got, parseJsonOutput, textScorer, verdict } from './kit.js';
import { normalize } from './normalize.js';
import { gradeAnswer, GRADER_VERSION } from './overlap.js';
import type { Scorer, Verdict } from './types.js';

/** The output, trimmed, equals expected (trimmed). `equals` does the same and also takes a value or JSON. */
export function exact(): Scorer {
  return textScorer('exact', null, (output, want) => verdict(output.trim() === want.trim(), 'output equals expected', () => got(want, output)));
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
  const base = textScorer(GRADER_VERSION, null, (output, want) => {
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

function gradeJsonField(path: readonly string[], output: string, expected: unknown): Verdict {
  const where = path.length === 0 ? 'the output' : `field ${path.join('.')}`;
  const parsed = parseJsonOutput(output);
  if (!parsed.ok) return { passed: false, detail: `output is not JSON: ${preview(output)}` };
  let value = parsed.value;
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

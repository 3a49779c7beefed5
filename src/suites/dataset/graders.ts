// The dataset graders. Each is a pure function of the model's output and the case's `expected`,
// blind to the arm. A grader is named by a string, so it fits a flag, a case line and a config alike:
//   exact                       trimmed output equals expected
//   contains                    output contains expected (case-sensitive)
//   regex[:FLAGS]               expected is a JavaScript pattern the output must match (flags from "imsu")
//   json-field[:PATH]           output parsed as JSON (a ``` fence is allowed); the value at PATH
//                               (dot-separated keys, array indices as numbers) equals expected, deep
//   deterministic-overlap-v1    memory-eviction's blind token-overlap grader
import { gradeAnswer, GRADER_VERSION } from '../memory-eviction/grader.js';
import { normalize } from '../memory-eviction/normalize.js';
import { jsonEqual, preview } from '../../sandbox/index.js';
import { assertNever } from '../../runtime/never.js';

/** A parsed grader name. */
export type Grader =
  | { kind: 'exact' }
  | { kind: 'contains' }
  | { kind: 'regex'; flags: string }
  | { kind: 'json-field'; path: string[] }
  | { kind: typeof GRADER_VERSION };

/** The grader names, for help texts and messages. */
export const GRADER_NAMES = ['exact', 'contains', 'regex[:FLAGS]', 'json-field[:PATH]', GRADER_VERSION] as const;

/** What one grading found. */
export interface Verdict {
  passed: boolean;
  detail: string;
}

/** Parses a grader name; a string result is what is wrong with it. */
export function parseGrader(name: string): Grader | string {
  const [kind, ...rest] = name.split(':');
  const arg = rest.join(':');
  switch (kind) {
    case 'exact':
    case 'contains':
    case GRADER_VERSION:
      return rest.length === 0 ? { kind } : `grader ${kind} takes no argument`;
    case 'regex':
      return /^[imsu]*$/.test(arg) && new Set(arg).size === arg.length ? { kind, flags: arg } : `regex flags must be distinct letters of "imsu", got ${JSON.stringify(arg)}`;
    case 'json-field':
      return arg === '' ? { kind, path: [] } : arg.split('.').every((s) => s !== '') ? { kind, path: arg.split('.') } : `json-field path ${JSON.stringify(arg)} has an empty segment`;
    default:
      return `unknown grader ${JSON.stringify(name)} (known: ${GRADER_NAMES.join(', ')})`;
  }
}

/** Why `expected` cannot be graded this way (checked when cases load), or null when it can. */
export function expectedProblem(grader: Grader, expected: unknown): string | null {
  if (expected === undefined) return 'has no "expected"';
  if (grader.kind === 'json-field') return null;
  const text = expectedText(expected);
  if (text === null) return `"expected" must be a string (or number) for grader ${grader.kind}, got ${preview(expected, 60)}`;
  if (grader.kind === 'regex') {
    try {
      new RegExp(text, grader.flags);
    } catch (err) {
      return `"expected" is not a valid regular expression: ${(err as Error).message}`;
    }
  }
  if (grader.kind === GRADER_VERSION && normalize(text).length === 0) return `"expected" has no tokens for ${GRADER_VERSION}`;
  return null;
}

/** Grades one output; `expected` has passed `expectedProblem`. */
export function grade(grader: Grader, output: string, expected: unknown): Verdict {
  const want = expectedText(expected) ?? '';
  const got = () => `expected ${preview(grader.kind === 'json-field' ? expected : want)}, got ${preview(output)}`;
  switch (grader.kind) {
    case 'exact':
      return verdict(output.trim() === want.trim(), 'output equals expected', got);
    case 'contains':
      return verdict(output.includes(want), 'output contains expected', got);
    case 'regex':
      return verdict(new RegExp(want, grader.flags).test(output), `output matches /${want}/${grader.flags}`, got);
    case 'json-field':
      return gradeJsonField(grader.path, output, expected);
    case GRADER_VERSION: {
      const g = gradeAnswer(output, want);
      return { passed: g.correct, detail: `rule ${g.rule}` };
    }
    default:
      return assertNever(grader);
  }
}

function verdict(passed: boolean, ok: string, failed: () => string): Verdict {
  return { passed, detail: passed ? ok : failed() };
}

// Numbers are accepted where text is expected: `"expected": 4` means the text "4".
function expectedText(expected: unknown): string | null {
  if (typeof expected === 'string') return expected;
  if (typeof expected === 'number' && Number.isFinite(expected)) return String(expected);
  return null;
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
  return jsonEqual(value, expected) ? { passed: true, detail: `${where} equals expected` } : { passed: false, detail: `${where}: expected ${preview(expected)}, got ${preview(value)}` };
}

function step(value: unknown, key: string): { ok: true; value: unknown } | { ok: false } {
  if (Array.isArray(value)) {
    const i = /^\d+$/.test(key) ? Number(key) : -1;
    return i >= 0 && i < value.length ? { ok: true, value: value[i] } : { ok: false };
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) return { ok: true, value: (value as Record<string, unknown>)[key] };
  return { ok: false };
}

// Models often wrap JSON in a Markdown fence; the fence is not part of the answer.
function unfence(text: string): string {
  const m = /^\s*```[A-Za-z]*\n([\s\S]*?)\n?```\s*$/.exec(text);
  return m ? m[1]! : text;
}

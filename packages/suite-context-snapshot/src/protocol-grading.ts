// Grading an artifact of the published context-snapshot protocol (a case read from the user's
// upstream folder), with the protocol's own rules, so evalog's verdicts match the published
// grader's. The one place for it: the `context-snapshot grade` command and the suite's protocol
// mode both call gradeProtocolCase. Python artifacts run in python-grader.ts, which is not an
// operating-system sandbox.
import { gradePython, type PythonCheckResult } from './python-grader.js';
import type { ProtocolCase } from './protocol/types.js';

/** Which checks run: every hidden one, or what the worker's public check reveals. */
export type ProtocolGradeMode = 'hidden' | 'public';

/** One check: a JSON key (or "JSON shape" in public mode), or a Python check's index. */
export type ProtocolCheckResult = { check: string; passed: boolean } | PythonCheckResult;

/** The published grader's shape. Invalid: `error` says why; an invalid Python artifact has no checks. */
export interface ProtocolGrade {
  valid: boolean;
  error: string | null;
  checks: ProtocolCheckResult[];
}

/** The public check of a JSON artifact, named as the published grader names it. */
export const JSON_SHAPE_CHECK = 'JSON shape';

/** The verdict: valid, at least one check, and every check passed. */
export function protocolPassed(grade: ProtocolGrade): boolean {
  return grade.valid && grade.checks.length > 0 && grade.checks.every((c) => c.passed);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// A bool is an int in Python (True == 1 == 1.0), at any depth; the published grader tells bools
// apart only at the top level of a value.
const numeric = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : null);

/** Python's `==` over JSON values (None, bool, int/float, str, list, dict). */
export function pythonEqual(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== null || nb !== null) return na !== null && nb !== null && na === nb;
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pythonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && pythonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * A JSON artifact: valid when its key set equals the expected one; public mode has one check
 * (that key set); hidden mode one per expected key: the value equals the target (Python `==`)
 * and is a bool exactly when the target is. A missing key reads as null, as `dict.get` does.
 */
export function gradeProtocolJson(expected: Record<string, unknown>, content: string, isPublic: boolean): ProtocolGrade {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (err) {
    return { valid: false, error: `not valid JSON: ${(err as Error).message}`, checks: [] };
  }
  if (!isObject(value)) return { valid: false, error: 'not a JSON object', checks: [] };
  const want = Object.keys(expected);
  const got = Object.keys(value);
  const valid = want.length === got.length && want.every((k) => Object.hasOwn(value, k));
  const error = valid
    ? null
    : `the key set differs from the expected one (missing: ${want.filter((k) => !Object.hasOwn(value, k)).join(', ') || 'none'}; unexpected: ${got.filter((k) => !Object.hasOwn(expected, k)).join(', ') || 'none'})`;
  if (isPublic) return { valid, error, checks: [{ check: JSON_SHAPE_CHECK, passed: valid }] };
  const checks = Object.entries(expected).map(([key, target]) => {
    const actual = Object.hasOwn(value, key) ? value[key] : null;
    return { check: key, passed: pythonEqual(actual, target) && (typeof actual === 'boolean') === (typeof target === 'boolean') };
  });
  return { valid, error, checks };
}

/**
 * Grades one artifact (null or empty: none was written) of a protocol case. Never throws for a
 * bad artifact; throws PythonUnavailableError when a Python case meets a machine without python3,
 * and PythonGradeStalledError when python3 stalls past the wall limit (no verdict either way).
 */
export async function gradeProtocolCase(c: ProtocolCase, content: string | null, mode: ProtocolGradeMode): Promise<ProtocolGrade> {
  if (!content) return { valid: false, error: 'no artifact was written', checks: [] };
  if (c.kind === 'json') {
    if (c.expected === null) return { valid: false, error: `case ${c.name} has no expected object`, checks: [] };
    return gradeProtocolJson(c.expected, content, mode === 'public');
  }
  if (c.function === null) return { valid: false, error: `case ${c.name} names no function`, checks: [] };
  return gradePython(content, c.function, mode === 'public' ? c.checks.slice(0, 1) : c.checks);
}

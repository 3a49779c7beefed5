// Grading one artifact of a context-snapshot task, in hidden mode (the predeclared checks, after
// the run) or public mode (what the worker's `run_public_checks` tool reveals: the key set of a
// JSON artifact, or the first hidden check of a JavaScript one). JavaScript artifacts run in
// src/sandbox, which is a restricted Node child process and NOT an operating-system sandbox.
import { jsonEqual, preview, runSandboxed } from 'evalog';
import type { GradeResult, JsonTask, JsTask, Task } from './manifest.js';

/** Which checks to run: every hidden check, or the public subset. */
export type GradeMode = 'hidden' | 'public';

type Check = GradeResult['checks'][number];

function verdict(valid: boolean, invalidReason: string | null, checks: Check[]): GradeResult {
  return { valid, invalidReason, checks, passed: valid && checks.length > 0 && checks.every((c) => c.passed) };
}

/** The ids of the checks a mode runs, in order. */
function modeCheckIds(task: Task, mode: GradeMode): string[] {
  if (task.kind === 'json') return mode === 'hidden' ? Object.keys(task.expected) : ['keys'];
  return (mode === 'hidden' ? task.checks : task.checks.slice(0, 1)).map((c) => c.id);
}

// An invalid artifact still lists its checks (all failed), so every report has the same shape.
function notRun(task: Task, mode: GradeMode, reason: string): GradeResult {
  return verdict(
    false,
    reason,
    modeCheckIds(task, mode).map((id) => ({ id, passed: false, detail: `not run: ${reason}` })),
  );
}

function parseObject(content: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return `not valid JSON: ${(error as Error).message}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `not a JSON object (got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})`;
  }
  return value as Record<string, unknown>;
}

function gradeJson(task: JsonTask, content: string, mode: GradeMode): GradeResult {
  const artifact = parseObject(content);
  if (typeof artifact === 'string') return notRun(task, mode, artifact);
  const missing = Object.keys(task.expected).filter((k) => !Object.hasOwn(artifact, k));
  const extra = Object.keys(artifact).filter((k) => !Object.hasOwn(task.expected, k));
  const keysEqual = missing.length === 0 && extra.length === 0;
  const keyProblem = keysEqual ? null : `the key set differs from the expected one (missing: ${preview(missing)}; unexpected: ${preview(extra)})`;
  if (mode === 'public')
    return verdict(keysEqual, keyProblem, [{ id: 'keys', passed: keysEqual, detail: keyProblem ?? 'ok: the key set is the expected one' }]);
  const checks = Object.entries(task.expected).map(([key, target]): Check => {
    if (!Object.hasOwn(artifact, key)) return { id: key, passed: false, detail: 'missing key' };
    const value = artifact[key];
    // jsonEqual already tells true from 1; the explicit bool-ness test mirrors the published grader.
    const passed = jsonEqual(value, target) && (typeof value === 'boolean') === (typeof target === 'boolean');
    return { id: key, passed, detail: passed ? 'ok' : `expected ${preview(target)}, got ${preview(value)}` };
  });
  return verdict(keysEqual, keyProblem, checks);
}

async function gradeJs(task: JsTask, content: string, mode: GradeMode): Promise<GradeResult> {
  const checks = mode === 'hidden' ? task.checks : task.checks.slice(0, 1);
  const run = await runSandboxed(content, task.functionName, checks);
  return verdict(
    run.staticResult.ok,
    run.staticResult.reason,
    run.checks.map(({ id, passed, detail }) => ({ id, passed, detail })),
  );
}

/**
 * Grade an artifact (null: none was saved). Never throws for a bad artifact; throws
 * SandboxUnavailableError when the JavaScript sandbox itself cannot start.
 */
export async function gradeArtifact(task: Task, content: string | null, mode: GradeMode): Promise<GradeResult> {
  if (content === null) return notRun(task, mode, 'no artifact was saved');
  return task.kind === 'json' ? gradeJson(task, content, mode) : gradeJs(task, content, mode);
}

/** The text `run_public_checks` returns: `{"public_checks_passed", "revision", "details"}` as JSON, details one line per check. */
export function publicCheckReport(result: GradeResult, revision: number | null): string {
  // An invalid artifact's reason is said once, not repeated on every check it stopped.
  const said = (detail: string): boolean => detail === result.invalidReason || detail.startsWith('not run: ');
  const details = result.checks.map((c) => `${c.id}: ${c.passed ? 'passed' : said(c.detail) ? 'failed' : `failed (${c.detail})`}`);
  if (!result.valid && result.invalidReason !== null) details.unshift(`invalid artifact: ${result.invalidReason}`);
  return JSON.stringify({ public_checks_passed: result.passed, revision, details });
}

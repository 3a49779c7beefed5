/**
 * Grading one Python artifact (the source of a function) on predeclared checks, with the rules of
 * the published context-snapshot protocol: a syntax screen (no import, class, global, nonlocal,
 * with; no reflective or I/O names; no `__` names but `__name__`; no `_` attributes), a short
 * list of builtins, inputs deep-copied and a mutated input failing its check, expected exceptions
 * matched by class name, 3 s for the whole process.
 *
 * The 3 s are CPU time, not wall time (issue 37; src/sandbox's runPythonLimited says why). The
 * published grader's 3 s wall timeout counts python3's start-up and every moment the process waits
 * for a core, so on a loaded machine a correct artifact came back invalid. An artifact cannot wait
 * without running (no sleep, input or I/O within the screen), so nothing the published limit
 * stopped gets through. Hitting the wall limit far above it is no verdict: PythonGradeStalledError.
 *
 * NOT an operating-system sandbox: the artifact runs in a plain `python3 -I` child (only PATH and
 * an encoding in its environment, an empty temporary folder as its cwd, killed at its limits),
 * with no memory cap and no file-system or network barrier beyond the screen. Grade model output
 * from a source you would run on this machine anyway, or in a disposable environment.
 */
import type { PythonOutcome } from 'evalog';
import { runPythonLimited } from 'evalog';
import { PYTHON_GRADER_SCRIPT } from './python-grader-script.js';

/** The name every grader's temporary folder starts with. */
const PYGRADE_PREFIX = 'evalog-pygrade-';

/** The published grader's budget for one artifact, process start-up included, as CPU seconds. */
export const PYTHON_GRADE_CPU_SECONDS = 3;

/** The wall-clock limit beside it: only a stalled machine reaches it (then there is no verdict). */
export const PYTHON_GRADE_WALL_MS = 120_000;

/** python3 did not finish grading within the wall limit though under its CPU budget: no verdict on the artifact. */
export class PythonGradeStalledError extends Error {
  override name = 'PythonGradeStalledError';
  constructor(
    readonly wallMs: number,
    readonly cpuSeconds: number,
  ) {
    super(
      `python3 did not finish grading within ${wallMs / 1000} s of wall time (its CPU budget is ${cpuSeconds} s): the machine stalled, so the artifact has no grade; grade it again`,
    );
  }
}

/** One check: call the function with `args`; expect `want` (Python `==`), or an exception class named `raises`. */
export interface PythonCheck {
  args: unknown[];
  want?: unknown;
  raises?: string;
}

/** One check's outcome. `actual` and `mutated_input` when the call returned; `exception` when it raised. */
export interface PythonCheckResult {
  check: number;
  passed: boolean;
  actual?: unknown;
  exception?: string;
  mutated_input?: boolean;
}

/** The grade of one artifact. Invalid (screen, syntax, load, missing function, timeout): `error` says why, no checks. */
export interface PythonGrade {
  valid: boolean;
  error: string | null;
  checks: PythonCheckResult[];
}

const invalid = (error: string): PythonGrade => ({ valid: false, error, checks: [] });

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1]?.trim() ?? '';
}

// The script prints one JSON report; anything else (a crash, an empty stdout) is no grade at all.
function readReport(out: PythonOutcome): PythonGrade {
  let report: unknown;
  try {
    report = JSON.parse(out.stdout);
  } catch {
    const how = out.signal ? `was killed by ${out.signal}` : `exited with code ${out.code}`;
    const why = lastLine(out.stderr);
    return invalid(`GraderError: python3 ${how} and printed no report${why ? ` (${why})` : ''}`);
  }
  const r = report as Partial<PythonGrade> | null;
  if (typeof r?.valid !== 'boolean' || !Array.isArray(r.checks)) return invalid('GraderError: python3 printed a report of the wrong shape');
  return { valid: r.valid, error: typeof r.error === 'string' ? r.error : null, checks: r.checks };
}

/** The limits of one grade: CPU seconds (whole, as RLIMIT_CPU counts them) and the wall-clock backstop. */
export interface PythonGradeLimits {
  cpuSeconds?: number;
  wallMs?: number;
}

/**
 * Grades `code` by calling its `functionName` on each check, in a fresh python3 process. Never
 * throws for a bad artifact (it is invalid or fails checks); throws PythonUnavailableError when
 * python3 cannot start and PythonGradeStalledError at the wall limit, so a task fails with that
 * message instead of a wrong grade.
 */
export async function gradePython(code: string, functionName: string, checks: readonly PythonCheck[], opts: PythonGradeLimits = {}): Promise<PythonGrade> {
  const cpuSeconds = opts.cpuSeconds ?? PYTHON_GRADE_CPU_SECONDS;
  const wallMs = opts.wallMs ?? PYTHON_GRADE_WALL_MS;
  const input = JSON.stringify({ code, function: functionName, checks });
  const out = await runPythonLimited({ script: PYTHON_GRADER_SCRIPT, input, cpuSeconds, wallMs, tempPrefix: PYGRADE_PREFIX });
  if (out.timedOut) throw new PythonGradeStalledError(wallMs, cpuSeconds);
  // The kernel's signal at the CPU limit. (Its SIGKILL a second later would need SIGXCPU to be
  // caught, which an artifact cannot do; a SIGKILL is then the OOM killer's, a GraderError below.)
  if (out.cpuExceeded) return invalid(`TimeoutError: the artifact did not finish within ${cpuSeconds} s of CPU time (process killed)`);
  return readReport(out);
}

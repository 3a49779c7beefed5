/**
 * The restricted JavaScript sandbox: run one model-written function on JSON test inputs.
 *
 * NOT an operating-system sandbox. It is a layered, best-effort restriction that is good enough to
 * grade eval artifacts on a development machine, not to contain hostile code; run model output
 * in a disposable environment. The layers:
 *
 * 1. Static check (acorn, the grammar V8 will see): no import/export/import(), require, process,
 *    global object names, eval/Function/AsyncFunction, `constructor`, `__`-names, prototype
 *    access beyond `X.prototype.m.call(...)`, with, class, super, `this` outside functions,
 *    Date/Intl/timers/network names (see static-rules.ts for the full list).
 * 2. A separate Node process (`process.execPath -e`) under the permission model with no
 *    `--allow-*` grant (no file read or write, no child process, worker, addon or WASI),
 *    `--disallow-code-generation-from-strings`, `--frozen-intrinsics`, `--disable-proto=delete`,
 *    a 64 MB heap cap, and an empty environment. Sockets are NOT covered by the permission model
 *    of Node 20-24; only layer 3 keeps them out of reach.
 * 3. Inside it, a fresh vm context per check with code generation off, only computational
 *    built-ins (no Date, Proxy, Reflect, timers, typed arrays), inputs parsed from JSON inside
 *    the context (no host object ever enters it), a per-check vm timeout, and results
 *    serialised inside the context to plain JSON. Inputs are compared after the call: a mutated
 *    input fails the check. Expected errors match by the thrown error's `name`.
 * 4. A 3 s wall-clock budget per run (process start-up not counted): the process is killed and
 *    unfinished checks fail as timeouts. A crash (the heap cap) fails the check in flight; the
 *    remaining checks get a new process.
 */
import { runChecks } from './run-checks.js';
import { staticCheck } from './static-check.js';
import type { SandboxCheck, SandboxCheckResult, SandboxOptions, StaticCheckResult } from './types.js';

export { staticCheck } from './static-check.js';
export { runChecks, SANDBOX_DEFAULTS } from './run-checks.js';
export { jsonEqual, preview } from './json-equal.js';
export { permissionFlag, childArgs } from './node-flags.js';
export { BANNED_IDENTIFIERS, BANNED_PROPERTIES, BANNED_NODES } from './static-rules.js';
export { SandboxUnavailableError, SandboxProtocolError, InvalidFunctionNameError } from './errors.js';
export type { SandboxCheck, SandboxCheckResult, SandboxOptions, SandboxStatus, StaticCheckResult, Violation } from './types.js';

/** The sandbox's one-line self-description, for reports and README text. */
export const SANDBOX_DISCLAIMER =
  'JavaScript artifacts run in a restricted Node child process (permission model, vm context, 3 s, 64 MB); this is not an operating-system sandbox.';

/** What `runSandboxed` found: the static verdict, and the checks (run only when it is ok). */
export interface SandboxRun {
  staticResult: StaticCheckResult;
  checks: SandboxCheckResult[];
}

/** Statically check `source`, then, if it passes, run its function on every check in the sandbox. */
export async function runSandboxed(source: string, functionName: string, checks: readonly SandboxCheck[], options: SandboxOptions = {}): Promise<SandboxRun> {
  const staticResult = staticCheck(source, functionName);
  if (!staticResult.ok) {
    const detail = `not run: ${staticResult.reason ?? 'the artifact is invalid'}`;
    return { staticResult, checks: checks.map((c) => ({ id: c.id, passed: false, status: 'invalid', detail })) };
  }
  return { staticResult, checks: await runChecks(source, functionName, checks, options) };
}

// evalog's own Python scripts: run in isolated python3, or under a CPU budget and a wall limit with an
// empty folder as cwd (for a script that handles untrusted input); also not an operating-system sandbox.
export { PYTHON, PythonUnavailableError, runPython, runPythonSync, type PythonOutcome, type PythonRun } from './python.js';
export { runPythonLimited, type LimitedPythonOutcome, type LimitedPythonRun } from './python-limited.js';
// Temporary folders named for their process, so a later one removes those a killed process left.
export { makeOwnedTemp, removeTree } from './owned-temp.js';
// Test scripts of a small repository, each in its own restricted process (the coding suite's hidden tests).
export { runTestFiles, TEST_FILE_DEFAULTS, TestFilePathError, type TestFileResult, type TestFilesRun, type TestFileStatus } from './test-files.js';

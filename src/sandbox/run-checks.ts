// Running an artifact's checks in sandbox processes: one process for all of them, and after a
// crash (the heap cap, typically) a new one for the checks not yet run, so one input that blows
// the heap fails only its own check. At the run deadline every unfinished check fails as a timeout.
import { SandboxProtocolError, SandboxUnavailableError, InvalidFunctionNameError } from './errors.js';
import { judge, judgeDeath } from './judge.js';
import { runChild, type ChildReport, type RunBudget } from './process.js';
import type { SandboxCheck, SandboxCheckResult, SandboxOptions } from './types.js';

/** The suite's limits: 3 s per run, 1 s per check, a 64 MB heap, 10 s to start. */
export const SANDBOX_DEFAULTS: Required<SandboxOptions> = { runTimeoutMs: 3000, checkTimeoutMs: 1000, memoryMb: 64, startupTimeoutMs: 10_000 };

// Larger return values are refused inside the sandbox rather than shipped to the host.
const MAX_TEXT = 1_000_000;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function unavailable(report: ChildReport): SandboxUnavailableError {
  if (report.spawnError !== null) return new SandboxUnavailableError(`spawning ${process.execPath} failed: ${report.spawnError}`);
  if (report.fatal !== null) return new SandboxUnavailableError(report.fatal);
  const how = report.signal !== null ? `signal ${report.signal}` : `exit code ${String(report.exitCode)}`;
  return new SandboxUnavailableError(`the process ended before it was ready (${how}): ${report.stderr.trim().slice(-500) || 'no output'}`);
}

/**
 * Run `functionName` from `source` on every check, in a restricted Node child process, WITHOUT
 * the static check (see `staticCheck`; `runSandboxed` does both). Throws only when the sandbox
 * itself cannot run (SandboxUnavailableError); an artifact's failures are check results.
 */
export async function runChecks(
  source: string,
  functionName: string,
  checks: readonly SandboxCheck[],
  options: SandboxOptions = {},
): Promise<SandboxCheckResult[]> {
  if (!IDENTIFIER.test(functionName)) throw new InvalidFunctionNameError(functionName);
  const limits = { ...SANDBOX_DEFAULTS, ...options };
  const budget: RunBudget = { remainingMs: limits.runTimeoutMs, startupTimeoutMs: limits.startupTimeoutMs, memoryMb: limits.memoryMb };
  const results: SandboxCheckResult[] = [];
  while (results.length < checks.length) {
    const rest = checks.slice(results.length);
    const report = await runChild({ source, functionName, args: rest.map((c) => c.args), checkTimeoutMs: limits.checkTimeoutMs, maxText: MAX_TEXT }, budget);
    if (!report.ready || report.fatal !== null) throw unavailable(report);
    report.results.forEach((raw, index) => {
      results.push(judge(rest[index]!, raw, functionName));
    });
    if (results.length === checks.length) break;
    if (report.done) throw new SandboxProtocolError(`the process reported done after ${report.results.length} of ${rest.length} checks`);
    if (report.killedAtDeadline) {
      for (const check of checks.slice(results.length)) {
        results.push({ id: check.id, passed: false, status: 'timeout', detail: `timeout: the run exceeded its ${limits.runTimeoutMs} ms budget` });
      }
      break;
    }
    results.push(judgeDeath(checks[results.length]!, report, limits.memoryMb));
  }
  return results;
}

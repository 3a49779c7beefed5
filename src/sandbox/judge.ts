// Turning what the driver reported for one check into a verdict against the check's expectation.
import { jsonEqual, preview } from './json-equal.js';
import type { RawResult } from './process.js';
import type { SandboxCheck, SandboxCheckResult, SandboxStatus } from './types.js';

function result(check: SandboxCheck, status: SandboxStatus, detail: string): SandboxCheckResult {
  return { id: check.id, passed: status === 'passed', status, detail };
}

function text(value: unknown, max = 300): string {
  const s = typeof value === 'string' ? value : '';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function thrown(raw: RawResult): string {
  const name = typeof raw.name === 'string' ? raw.name : null;
  const message = text(raw.message);
  return name === null ? message : message === '' ? name : `${name}: ${message}`;
}

/** The verdict for one check from the driver's report of it. */
export function judge(check: SandboxCheck, raw: RawResult, functionName: string): SandboxCheckResult {
  switch (raw.status) {
    case 'timeout':
      return result(check, 'timeout', 'timeout: the check did not finish within its time limit');
    case 'crashed':
      return result(check, 'crashed', `the sandbox failed during this check: ${text(raw.message)}`);
    case 'load-error':
      return result(check, 'load-error', `the artifact threw while being defined: ${thrown(raw)}`);
    case 'not-a-function':
      return result(check, 'not-a-function', `\`${functionName}\` is ${text(raw.type)}, not a function`);
  }
  const mutated = Array.isArray(raw.mutated) ? raw.mutated : [];
  if (mutated.length > 0) {
    const which = mutated.length === 1 ? `argument ${String(mutated[0])} was` : `arguments ${mutated.join(', ')} were`;
    return result(check, 'mutated', `${which} mutated (the function must not change its inputs)`);
  }
  if (raw.status === 'unserialisable') return result(check, 'unserialisable', `returned ${text(raw.why)}, not a plain JSON value`);
  if (raw.status === 'threw') {
    const name = typeof raw.name === 'string' ? raw.name : null;
    if (check.throws !== undefined && name === check.throws) return result(check, 'passed', `ok (threw ${name})`);
    const expected = check.throws !== undefined ? `expected ${check.throws}, ` : '';
    return result(check, 'wrong-error', `${expected}threw ${thrown(raw) || 'an error'}`);
  }
  if (raw.status === 'returned') {
    if (check.throws !== undefined) return result(check, 'wrong-value', `expected ${check.throws} to be thrown, returned ${preview(raw.value)}`);
    if (jsonEqual(raw.value, check.expect)) return result(check, 'passed', 'ok');
    return result(check, 'wrong-value', `expected ${preview(check.expect)}, got ${preview(raw.value)}`);
  }
  return result(check, 'crashed', `the sandbox reported an unknown status ${JSON.stringify(raw.status)}`);
}

/** The verdict for the check that was running when the process died (not at the deadline). */
export function judgeDeath(
  check: SandboxCheck,
  report: { exitCode: number | null; signal: string | null; stderr: string; killedForOutput: boolean },
  memoryMb: number,
): SandboxCheckResult {
  if (report.killedForOutput) return result(check, 'crashed', 'the sandbox process wrote too much output and was stopped');
  const oom = /heap out of memory|Allocation failed|OutOfMemory/i.test(report.stderr) || report.signal === 'SIGABRT' || report.exitCode === 134;
  if (oom) return result(check, 'memory', `memory: the check exceeded the ${memoryMb} MB heap cap of the sandbox process`);
  const how = report.signal !== null ? `signal ${report.signal}` : `exit code ${String(report.exitCode)}`;
  return result(check, 'crashed', `the sandbox process died during this check (${how})`);
}

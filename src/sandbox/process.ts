// One sandbox process: spawn it, send the job, collect its JSON lines, and kill it when the run's
// time budget is spent. The budget is shared by every process of one run (a run respawns after a
// crash) and only runs while a process is ready, so process start-up on a busy machine is not
// charged to the artifact.
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CHILD_SOURCE } from './child-source.js';
import { childArgs } from './node-flags.js';

/** What one process is asked to do. */
export interface ChildJob {
  source: string;
  functionName: string;
  args: unknown[][];
  checkTimeoutMs: number;
  maxText: number;
}

/** One line of a check's result, as the driver reported it (validated loosely; judged later). */
export type RawResult = Record<string, unknown> & { status: string };

/** How a process ended and what it said. */
export interface ChildReport {
  ready: boolean;
  fatal: string | null;
  results: RawResult[];
  done: boolean;
  killedAtDeadline: boolean;
  killedForOutput: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  spawnError: string | null;
}

/** Shared across the processes of one run: the time left for the artifact's code. */
export interface RunBudget {
  remainingMs: number;
  startupTimeoutMs: number;
  memoryMb: number;
}

const MAX_STDOUT = 16 * 1024 * 1024;
const MAX_STDERR = 16 * 1024;

/** Run one sandbox process to its end. Never rejects: every failure is in the report. */
export function runChild(job: ChildJob, budget: RunBudget): Promise<ChildReport> {
  return new Promise((resolve) => {
    const report: ChildReport = {
      ready: false,
      fatal: null,
      results: [],
      done: false,
      killedAtDeadline: false,
      killedForOutput: false,
      exitCode: null,
      signal: null,
      stderr: '',
      spawnError: null,
    };
    // No inherited environment: no NODE_OPTIONS can add flags, no API key is within reach.
    const child = spawn(process.execPath, childArgs(CHILD_SOURCE, budget.memoryMb), {
      env: {},
      cwd: tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let timer = setTimeout(() => child.kill('SIGKILL'), budget.startupTimeoutMs);
    let readyAt: number | null = null;
    let stdoutBytes = 0;
    let pending = '';

    const onLine = (line: string): void => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // not ours; the protocol lines are all JSON
      }
      if (message.ready === true && !report.ready) {
        report.ready = true;
        clearTimeout(timer);
        readyAt = performance.now();
        timer = setTimeout(
          () => {
            report.killedAtDeadline = true;
            child.kill('SIGKILL');
          },
          Math.max(0, budget.remainingMs),
        );
      } else if (typeof message.fatal === 'string') report.fatal = message.fatal;
      else if (message.done === true) report.done = true;
      else if (typeof message.status === 'string' && message.index === report.results.length) report.results.push(message as RawResult);
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT) {
        report.killedForOutput = true;
        child.kill('SIGKILL');
        return;
      }
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      report.stderr = (report.stderr + chunk).slice(-MAX_STDERR);
    });
    child.stdin.on('error', () => {
      /* the process died before reading its job; the exit tells why */
    });
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (readyAt !== null) budget.remainingMs -= performance.now() - readyAt;
      resolve(report);
    };
    child.on('error', (error) => {
      report.spawnError = error.message;
      if (child.pid === undefined) finish(); // never started: no 'close' is guaranteed
    });
    child.on('close', (code, signal) => {
      report.exitCode = code;
      report.signal = signal;
      finish();
    });
    child.stdin.end(JSON.stringify(job));
  });
}

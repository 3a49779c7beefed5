// Running python3 for evalog's own Python scripts (the protocol-file loader, the artifact grader).
// One place decides which interpreter runs and what environment it gets: isolated mode (-I: no
// user site, no PYTHON* variables, no script directory on sys.path) and only PATH and an encoding.
import { spawn, spawnSync } from 'node:child_process';

/** The interpreter evalog runs. */
export const PYTHON = 'python3';

/** python3 is not installed (or could not start): a Python task cannot be loaded or graded. */
export class PythonUnavailableError extends Error {
  override name = 'PythonUnavailableError';
  constructor(why: string) {
    super(`python3 is needed for the protocol's Python files and artifacts and could not run: ${why} (install python3, e.g. apt-get install -y python3)`);
  }
}

/** What one Python process did. `timedOut`: killed at the deadline. */
export interface PythonOutcome {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
}

/** Options of one run: the script's argv after `-I -c SCRIPT`, its stdin, deadline and cwd. */
export interface PythonRun {
  script: string;
  args?: readonly string[];
  input?: string;
  timeoutMs?: number;
  cwd?: string;
}

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONIOENCODING: 'utf-8' });

/** Runs `python3 -I -c SCRIPT ARGS` to completion (synchronously: for loading inputs before a run). */
export function runPythonSync(run: PythonRun): PythonOutcome {
  const r = spawnSync(PYTHON, ['-I', '-c', run.script, ...(run.args ?? [])], {
    input: run.input ?? '',
    encoding: 'utf8',
    env: env(),
    cwd: run.cwd,
    timeout: run.timeoutMs,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new PythonUnavailableError(`${PYTHON} was not found on PATH`);
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  if (r.error && !timedOut) throw new PythonUnavailableError(r.error.message);
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', code: r.status, signal: r.signal, timedOut };
}

/** Runs `python3 -I -c SCRIPT ARGS` without blocking the event loop; killed (SIGKILL) at the deadline. */
export function runPython(run: PythonRun): Promise<PythonOutcome> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(PYTHON, ['-I', '-c', run.script, ...(run.args ?? [])], { env: env(), cwd: run.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer =
      run.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, run.timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new PythonUnavailableError(err.code === 'ENOENT' ? `${PYTHON} was not found on PATH` : err.message));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ stdout, stderr, code, signal, timedOut });
    });
    // A script that exits before reading its input closes the pipe; that is its answer, not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(run.input ?? '');
  });
}

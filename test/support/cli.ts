import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runCli } from '../../src/cli/main.js';
import { compileTree } from './compile.js';

const SOURCE_ENTRY = fileURLToPath(new URL('./evalog-entry.ts', import.meta.url));
// Resolved here, not from the child's cwd, which is a temp folder without node_modules.
const TSX = import.meta.resolve('tsx');

// Children run evalog compiled once per test process (test/support/compile.ts, about a second), as
// an installed evalog runs from dist/; through tsx each child compiled the sources again in its
// loader (about 1.5 s and 60 MB a child, hundreds of children a run). The tree is compiled from
// the sources when the first child starts, so it is never stale. EVALOG_TEST_TSX=1 runs children
// from source through tsx instead (stack traces then point into the .ts files).
let compiled: string | null = null;
function compiledEntry(): string {
  if (compiled === null) {
    const out = mkdtempSync(join(tmpdir(), 'evalog-test-js-'));
    process.once('exit', () => rmSync(out, { recursive: true, force: true }));
    compiled = compileTree(out, ['src']);
  }
  return compiled;
}
function childArgs(): string[] {
  if (process.env.EVALOG_TEST_TSX === '1') return ['--import', TSX, SOURCE_ENTRY];
  return [compiledEntry()];
}

/**
 * The URL of evalog's public API for a suite file a test writes, as an installed evalog's user
 * imports it: the compiled per-file tree beside the children's CLI (its sources through tsx with
 * EVALOG_TEST_TSX=1). Importing the sources instead made every child that loads the suite compile
 * all of src/ in tsx's loader, about 3 s each.
 */
export function apiUrl(): string {
  return moduleUrl('api/index');
}

/** The URL of one module of src/ (`log/file/lock`, say) for a child to import, compiled as apiUrl's. */
export function moduleUrl(module: string): string {
  if (process.env.EVALOG_TEST_TSX === '1') return new URL(`../../src/${module}.ts`, import.meta.url).href;
  return pathToFileURL(join(dirname(compiledEntry()), 'src', `${module}.js`)).href;
}

/** Result of one CLI invocation in a real child process. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `evalog ARGS` as a child process (compiled from the sources, see childArgs). */
export function startEvalog(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): ChildProcess {
  return spawn(process.execPath, [...childArgs(), ...args], { cwd: options.cwd, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A child's environment: this process's, with `overrides` over it (an undefined value removes the variable). */
function childEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env = { ...process.env, ...overrides };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
  return env as Record<string, string>;
}

/** Runs `evalog ARGS` to completion and collects its output. */
export function runEvalog(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  const child = startEvalog(args, options);
  return collect(child);
}

/**
 * Runs `evalog ARGS` inside this test process, through the `runCli` that a child's `main` runs,
 * with the child's environment (this process's, with `env` over it) and its output collected as
 * runEvalog's. An exception that is no user error ends it as in a child: its stack on stderr, code 1.
 *
 * For commands whose child process would prove nothing more: those that read a finished run (rebuild,
 * runs, show, export, compare, watch without --follow), and runs, replays and resumes on the scripted
 * model or an HTTP stand-in. Each saves a child's start-up, about 0.6 s of CPU, on a suite that is
 * CPU-bound. Anything about the process itself stays a child: exit codes and signals, kills, the
 * writer lock, an agent's environment (built from evalog's own), the sandbox's PATH, a suite file
 * (its module would stay cached here), the launcher.
 */
export function runEvalogHere(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  return inProcess(args, { cwd: options.cwd, env: childEnv(options.env) }, true);
}

/** `runCli` with exactly the environment given (nothing of this process's), its output captured; a crash is thrown on. */
export function captureCli(args: string[], io: { cwd: string; env: Record<string, string> }): Promise<CliResult> {
  return inProcess(args, io, false);
}

async function inProcess(args: string[], io: { cwd: string; env: Record<string, string> }, crashAsChild: boolean): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const sink = (add: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        add(chunk.toString());
        done();
      },
    });
  let code: number;
  try {
    code = await runCli(args, { stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)), env: io.env, cwd: io.cwd });
  } catch (err) {
    if (!crashAsChild) throw err;
    stderr += `${(err as Error)?.stack ?? String(err)}\n`;
    code = 1;
  }
  return { code, signal: null, stdout, stderr };
}

/** Collects a child's output until it exits. */
export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Starts `evalog ARGS` and SIGKILLs it once its progress has shown `jobs` finished jobs; resolves when it exits. */
export function runKilledAfterJobs(args: string[], options: { cwd: string; env?: Record<string, string | undefined> }, jobs: number): Promise<CliResult> {
  // Per-job lines are for --verbose: without a terminal the default is a line every 10 s.
  const child = startEvalog([...args, '--verbose'], options);
  let finished = 0;
  child.stderr!.on('data', (d: Buffer) => {
    finished += (d.toString().match(/^job /gm) ?? []).length;
    if (finished >= jobs && child.exitCode === null) child.kill('SIGKILL');
  });
  return collect(child);
}

/** The pid of a process that has certainly exited (a pid is not handed out again at once). */
export function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** A fresh temporary folder, removed by the returned cleanup. */
export async function tempDir(prefix = 'evalog-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Every file below a folder (relative paths, sorted). */
export async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const p = join(dir, name);
    if ((await stat(p)).isDirectory()) out.push(...(await listFiles(p, base)));
    else out.push(p.slice(base.length + 1));
  }
  return out;
}

/** Reads a JSON Lines file. */
export async function readJsonl<T = Record<string, unknown>>(path: string): Promise<T[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** Drops wall-clock fields (which only two separate live runs may differ in) from a row. */
export function withoutWallClock<T extends Record<string, unknown>>(row: T): Omit<T, 'seconds' | 'started_at'> {
  const { seconds: _s, started_at: _a, ...rest } = row;
  return rest;
}

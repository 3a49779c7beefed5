// Test scripts of a small JavaScript repository, run on a copy of its files: the coding suite's
// hidden tests (and its run_tests tool's visible ones). Like the rest of the sandbox, a layered
// best-effort restriction and NOT an operating-system sandbox:
//
// 1. The files are written into a fresh temporary folder named for this process (a later evalog
//    removes it if this one is killed), never into the agent's workspace.
// 2. Each test file runs in its own Node process under the permission model: it may read that
//    folder and nothing else, and may not write, start processes, workers or addons; an empty
//    environment; a heap cap; a wall-clock limit, after which it is killed.
// 3. Sockets are outside the permission model of Node 20-24: before the test is imported, the
//    runner replaces the network entry points (net, tls, dgram, dns, http(s) agents, fetch,
//    WebSocket) with functions that throw. Code that digs under them (internal bindings) is not
//    stopped.
//
// The verdict of a test file is its exit: 0 passes. What a failure says is the error the test
// threw (its name and message, with the temporary folder's path taken out), so the same code fails
// with the same words on every run: the detail goes into recorded events that replay compares.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { permissionFlag } from './node-flags.js';
import { makeOwnedTemp, removeTree } from './owned-temp.js';

/** What to run: the repository's files (relative paths, `/` separators) and which of them are the tests. */
export interface TestFilesRun {
  files: Readonly<Record<string, string>>;
  /** Paths among `files`, run one after another in this order. */
  tests: readonly string[];
  /** Wall-clock limit of one test file's process, start-up included (default 5000). */
  timeoutMs?: number;
  /** V8 old-space cap of each process, in MB (default 64). */
  memoryMb?: number;
}

/** How one test file ended. */
export type TestFileStatus = 'passed' | 'failed' | 'timeout' | 'memory' | 'crashed';

/** The result of one test file. */
export interface TestFileResult {
  test: string;
  passed: boolean;
  status: TestFileStatus;
  /** `ok`, or the error the test threw (`AssertionError: 3 !== 4`), or why it was stopped; one line, at most 300 characters. */
  detail: string;
}

/** The defaults of a test file's limits. */
export const TEST_FILE_DEFAULTS = { timeoutMs: 5000, memoryMb: 64 } as const;

/** A test path that is not a relative path among the files: a caller's bug. */
export class TestFilePathError extends Error {
  override name = 'TestFilePathError';
  constructor(path: string) {
    super(`test file ${JSON.stringify(path)} is not a relative path among the files`);
  }
}

const TEMP_PREFIX = 'evalog-tests-';
const MAX_DETAIL = 300;
const MAX_OUTPUT = 64 * 1024;

// The runner, as an ES module given with -e: network off, then the test, then one JSON line.
const RUNNER = `
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net'; import tls from 'node:tls'; import dgram from 'node:dgram'; import dns from 'node:dns';
import http from 'node:http'; import https from 'node:https'; import { pathToFileURL } from 'node:url';
const refuse = () => { throw new Error('network access is not allowed in the sandbox'); };
net.connect = net.createConnection = net.Socket.prototype.connect = net.Server.prototype.listen = refuse;
tls.connect = dgram.createSocket = refuse;
dns.lookup = dns.resolve = dns.promises.lookup = dns.promises.resolve = refuse;
http.request = http.get = https.request = https.get = refuse;
globalThis.fetch = refuse; globalThis.WebSocket = undefined;
syncBuiltinESMExports();
const say = (o) => process.stdout.write('\\n' + JSON.stringify({ evalogTest: o }) + '\\n');
const text = (e) => e instanceof Error ? (e.name || 'Error') + ': ' + e.message : 'thrown: ' + String(e);
process.on('uncaughtException', (e) => { say({ ok: false, error: text(e) }); process.exit(1); });
process.on('unhandledRejection', (e) => { say({ ok: false, error: text(e) }); process.exit(1); });
try { await import(pathToFileURL(process.argv[1]).href); }
catch (e) { say({ ok: false, error: text(e) }); process.exit(1); }
process.on('beforeExit', () => { if (!process.exitCode) say({ ok: true }); });
`;

/** Runs each test file on a fresh copy of the files; never rejects for what the code under test does. */
export async function runTestFiles(run: TestFilesRun): Promise<TestFileResult[]> {
  for (const t of run.tests) if (!Object.hasOwn(run.files, t) || !isRelative(t)) throw new TestFilePathError(t);
  const dir = await makeOwnedTemp(TEMP_PREFIX);
  try {
    for (const path of Object.keys(run.files).sort()) {
      if (!isRelative(path)) throw new TestFilePathError(path);
      const file = join(dir, path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, run.files[path]!);
    }
    const out: TestFileResult[] = [];
    for (const test of run.tests) out.push(await runOne(dir, test, run));
    return out;
  } finally {
    await removeTree(dir);
  }
}

function runOne(dir: string, test: string, run: TestFilesRun): Promise<TestFileResult> {
  const timeoutMs = run.timeoutMs ?? TEST_FILE_DEFAULTS.timeoutMs;
  const memoryMb = run.memoryMb ?? TEST_FILE_DEFAULTS.memoryMb;
  const args = [
    permissionFlag(),
    `--allow-fs-read=${dir}/*`,
    `--max-old-space-size=${memoryMb}`,
    '--no-addons',
    '--no-warnings',
    // failedSubtest reads TAP; node:test's default is TAP only on Node 20 off a terminal.
    '--test-reporter=tap',
    '--input-type=module',
    '-e',
    RUNNER,
    join(dir, test),
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: dir, env: {}, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const keep = (s: string, chunk: string) => (s.length >= MAX_OUTPUT ? s : s + chunk.slice(0, MAX_OUTPUT - s.length));
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout = keep(stdout, c);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr = keep(stderr, c);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const done = (r: Omit<TestFileResult, 'test'>) => {
      clearTimeout(timer);
      resolve({ test, ...r, detail: oneLine(r.detail.replaceAll(dir, '.')) });
    };
    child.on('error', (err) => done({ passed: false, status: 'crashed', detail: `the test could not start: ${err.message}` }));
    child.on('close', (code, signal) => {
      if (timedOut) return done({ passed: false, status: 'timeout', detail: `timed out after ${timeoutMs} ms` });
      if (/heap out of memory|Allocation failed/i.test(stderr)) return done({ passed: false, status: 'memory', detail: `ran out of memory (${memoryMb} MB)` });
      const said = lastReport(stdout);
      if (code === 0 && said?.ok !== false) return done({ passed: true, status: 'passed', detail: 'ok' });
      if (said?.ok === false && typeof said.error === 'string') return done({ passed: false, status: 'failed', detail: said.error });
      const why = signal !== null ? `killed by ${signal}` : `exited with code ${code}`;
      return done({ passed: false, status: code === null ? 'crashed' : 'failed', detail: failedSubtest(stdout) ?? firstErrorLine(stderr) ?? why });
    });
  });
}

function isRelative(path: string): boolean {
  const parts = path.split('/');
  return !path.includes('\\') && !path.includes('\0') && parts.every((p) => p !== '' && p !== '.' && p !== '..');
}

function lastReport(stdout: string): { ok?: unknown; error?: unknown } | null {
  const lines = stdout.split('\n').filter((l) => l.startsWith('{"evalogTest":'));
  const last = lines.at(-1);
  if (last === undefined) return null;
  try {
    return (JSON.parse(last) as { evalogTest: { ok?: unknown; error?: unknown } }).evalogTest;
  } catch {
    return null;
  }
}

// node:test reports in TAP on stdout when its file is run directly: the first failed test names it.
function failedSubtest(stdout: string): string | null {
  const m = /^\s*not ok \d+ - (.+)$/m.exec(stdout);
  return m ? `test ${JSON.stringify(m[1]!.trim())} failed` : null;
}

function firstErrorLine(stderr: string): string | null {
  return stderr.split('\n').find((l) => /\w*Error\b/.test(l)) ?? null;
}

function oneLine(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > MAX_DETAIL ? `${one.slice(0, MAX_DETAIL - 1)}…` : one;
}

// One external agent's process for one job: the environment it may see, its fresh workspace, and
// the process itself — spawned in its own group, its output kept up to a bound (and drained past
// it, so a flooding agent is neither slowed nor killed for it), and the whole group killed at the
// time limit, on abort or on request. Never rejects: a program that cannot start is a result.
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { passThroughRefusal } from '../agent-spec/index.js';
// The module, not the sandbox's index: an agent run loads none of the sandbox (acorn, the graders).
import { makeOwnedTemp, removeTree } from '../../sandbox/owned-temp.js';
import { killGroup, releaseGroup, trackGroup } from './reaper.js';

/** Bytes of each of stdout and stderr kept by default; the rest is counted. */
export const DEFAULT_KEEP_BYTES = 256 * 1024;
/** The name every workspace folder starts with (removeWorkspace refuses any other folder). */
export const WORKSPACE_PREFIX = 'evalog-agent-';
/** How long the output pipes may stay open after the agent exited (a process that left its group). */
const CLOSE_GRACE_MS = 2000;
const LOCALE = ['LANG', 'LC_ALL', 'LC_CTYPE'] as const;

/**
 * The agent's whole environment: PATH from `from`, HOME = the workspace, the locale (LANG, LC_ALL,
 * LC_CTYPE as set; LANG=C.UTF-8 when none is), the job's `vars`, and the `pass` names set in `from`.
 * The job's own variables win over anything passed through.
 */
export function agentEnvironment(o: {
  from: NodeJS.ProcessEnv;
  pass: readonly string[];
  workspace: string;
  vars: Record<string, string>;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of o.pass) {
    // checkPassThrough refuses these when the config is read; this is the second lock on the key.
    const why = passThroughRefusal(name);
    if (why !== null) throw new Error(`agentEnvironment: ${name} may not be passed through (${why}); the agent's config should have been refused`);
    const value = o.from[name];
    if (value !== undefined) env[name] = value;
  }
  if (o.from.PATH !== undefined) env.PATH = o.from.PATH;
  env.HOME = o.workspace;
  let locale = false;
  for (const name of LOCALE) {
    const value = o.from[name];
    if (value !== undefined && value !== '') {
      env[name] = value;
      locale = true;
    }
  }
  if (!locale) env.LANG = 'C.UTF-8';
  return Object.assign(env, o.vars);
}

/**
 * A fresh, empty folder for one job, its name naming this process (see sandbox/owned-temp.ts): the
 * first one an evalog makes removes those a killed evalog left behind.
 */
export function makeWorkspace(): Promise<string> {
  return makeOwnedTemp(WORKSPACE_PREFIX);
}

/** Remove a job's workspace, even when the agent left folders without write permission. */
export async function removeWorkspace(dir: string): Promise<void> {
  if (!basename(dir).startsWith(WORKSPACE_PREFIX)) throw new Error(`removeWorkspace: ${dir} is not an agent workspace`);
  await removeTree(dir);
}

/** How the process ended: by itself (exit code or someone else's signal), or killed by evalog and why. */
export type AgentEnded = 'exited' | 'time_limit' | 'aborted' | 'killed';

/** What one agent process did. */
export interface AgentProcessResult {
  code: number | null;
  signal: string | null;
  ended: AgentEnded;
  /** The first `keepBytes` of the stream. */
  stdout: Buffer;
  stderr: Buffer;
  /** Every byte the stream carried, kept or not. */
  stdoutBytes: number;
  stderrBytes: number;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** A running agent process. */
export interface AgentProcess {
  /** Its pid (also its process group's id); null when it never started. */
  pid: number | null;
  /** Resolves once it ended and its output is read; never rejects. */
  done: Promise<AgentProcessResult>;
  /** Kill its whole group (ended: 'killed'); nothing once it has exited. */
  kill(): void;
}

/** How to start an agent's process. */
export interface AgentProcessOptions {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeLimitMs: number;
  signal: AbortSignal;
  keepBytes?: number;
}

/** A stream's first `limit` bytes, and the count of all of them. */
class Capture {
  private chunks: Buffer[] = [];
  private kept = 0;
  bytes = 0;
  constructor(private readonly limit: number) {}
  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.kept >= this.limit) return;
    const part = chunk.subarray(0, this.limit - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }
  get truncated(): boolean {
    return this.bytes > this.kept;
  }
  buffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/**
 * Start the agent: detached (its own process group, so its children die with it), stdin ignored,
 * the environment exactly `o.env`. When the agent itself exits, what is left of its group is
 * killed too: one process per job, nothing left running after it.
 */
export function startAgentProcess(o: AgentProcessOptions): AgentProcess {
  const out = new Capture(o.keepBytes ?? DEFAULT_KEEP_BYTES);
  const err = new Capture(o.keepBytes ?? DEFAULT_KEEP_BYTES);
  const result = (code: number | null, signal: string | null, ended: AgentEnded): AgentProcessResult => ({
    code,
    signal,
    ended,
    stdout: out.buffer(),
    stderr: err.buffer(),
    stdoutBytes: out.bytes,
    stderrBytes: err.bytes,
    stdoutTruncated: out.truncated,
    stderrTruncated: err.truncated,
  });
  const notStarted = (code: number, text: string): AgentProcess => {
    err.add(Buffer.from(`${text}\n`));
    return { pid: null, done: Promise.resolve(result(code, null, 'exited')), kill: () => {} };
  };
  if (o.signal.aborted) return { pid: null, done: Promise.resolve(result(null, null, 'aborted')), kill: () => {} };
  const [program, ...args] = o.argv;
  if (program === undefined) return notStarted(127, 'evalog: the agent command is empty');

  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(program, args, { cwd: o.cwd, env: o.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
  } catch (error) {
    // Arguments spawn refuses outright (a NUL byte in one): the program cannot be started.
    return notStarted(126, `evalog: cannot run ${program}: ${(error as Error).message}`);
  }
  const pid = child.pid ?? null;
  if (pid !== null) trackGroup(pid);

  let resolveDone!: (r: AgentProcessResult) => void;
  const done = new Promise<AgentProcessResult>((r) => {
    resolveDone = r;
  });
  let reason: AgentEnded | null = null;
  let exit: { code: number | null; signal: string | null } | null = null;
  let settled = false;
  let grace: NodeJS.Timeout | undefined;

  const stop = (why: Exclude<AgentEnded, 'exited'>): void => {
    if (pid === null || exit !== null || settled) return;
    reason ??= why;
    killGroup(pid);
  };
  const onAbort = (): void => stop('aborted');
  const limit = setTimeout(() => stop('time_limit'), o.timeLimitMs);
  o.signal.addEventListener('abort', onAbort, { once: true });

  const finish = (code: number | null, signal: string | null): void => {
    if (settled) return;
    settled = true;
    clearTimeout(limit);
    clearTimeout(grace);
    o.signal.removeEventListener('abort', onAbort);
    if (pid !== null) releaseGroup(pid);
    resolveDone(result(code, signal, reason ?? 'exited'));
  };

  child.stdout?.on('data', (chunk: Buffer) => out.add(chunk));
  child.stderr?.on('data', (chunk: Buffer) => err.add(chunk));
  child.stdout?.on('error', () => {});
  child.stderr?.on('error', () => {});
  child.on('error', (error: NodeJS.ErrnoException) => {
    if (pid !== null) return; // started: its 'exit' and 'close' tell how it ended
    const notFound = error.code === 'ENOENT' || error.code === 'ENOTDIR';
    err.add(Buffer.from(`evalog: cannot run ${program}: ${error.code ?? error.message}\n`));
    finish(notFound ? 127 : 126, null);
  });
  child.on('exit', (code, signal) => {
    exit = { code, signal };
    clearTimeout(limit);
    if (pid !== null) killGroup(pid); // its children go with it
    // A process that left the group may still hold the pipes; do not wait on it for ever.
    grace = setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      finish(code, signal);
    }, CLOSE_GRACE_MS);
  });
  child.on('close', (code, signal) => finish(exit?.code ?? code, exit?.signal ?? signal));

  return { pid, done, kill: () => stop('killed') };
}

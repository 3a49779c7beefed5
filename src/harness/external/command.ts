// An agent's command resolved against this machine's file system: the program found, file
// arguments made absolute and hashed. The resolved form is what run.json records, what resume
// compares and what a worker checks before it takes a job.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, resolve } from 'node:path';
import { UserError } from '../../core/errors.js';
import type { AgentCommandSpec } from '../agent-spec/index.js';

/** An agent's program cannot be run from here (not found, not a file, not executable). */
export class AgentCommandError extends UserError {
  override name = 'AgentCommandError';
  constructor(
    readonly agent: string,
    readonly program: string,
    problem: string,
  ) {
    super(`agent ${agent}: ${problem}`);
  }
}

/** A file the command names, as written, and its contents' sha256 (hex). */
export interface AgentFile {
  arg: string;
  sha256: string;
}

/** A command ready to spawn, and the files it names (recorded in run.json, compared on resume). */
export interface ResolvedAgent {
  argv: string[];
  files: AgentFile[];
}

/**
 * Find the program and the files of `spec.command`. A program with a `/` is a path relative to
 * `spec.cwd` (hashed, as the agent's own code); a bare name is looked up on `opts.path` (evalog's
 * PATH by default: the agent gets the same PATH) and not hashed. Every later argument naming an
 * existing regular file relative to `spec.cwd` is made absolute (the agent runs in its workspace)
 * and hashed. Throws AgentCommandError when the program cannot be run from here.
 */
export async function resolveAgentCommand(spec: AgentCommandSpec, opts: { agent?: string; path?: string } = {}): Promise<ResolvedAgent> {
  const agent = opts.agent ?? 'agent';
  const [program, ...args] = spec.command;
  if (program === undefined || program === '') throw new AgentCommandError(agent, '', 'empty command');
  const files: AgentFile[] = [];
  let argv0: string;
  if (program.includes('/')) {
    argv0 = resolve(spec.cwd, program);
    const problem = await notRunnable(argv0);
    if (problem !== null) throw new AgentCommandError(agent, program, `program ${program} ${problem} (looked at ${argv0})`);
    files.push({ arg: program, sha256: await sha256File(argv0) });
  } else {
    const found = await onPath(program, opts.path ?? process.env.PATH ?? '', spec.cwd);
    if (found === null) throw new AgentCommandError(agent, program, `program ${program} not found on PATH`);
    argv0 = found;
  }
  const argv = [argv0];
  for (const arg of args) {
    const path = resolve(spec.cwd, arg);
    if (arg !== '' && (await isFile(path))) {
      argv.push(path);
      files.push({ arg, sha256: await sha256File(path) });
    } else if (SCRIPT.test(arg) && !arg.startsWith('-')) {
      // `python3 agnet.py` would fail in every job alike; say so once, before the run starts.
      throw new AgentCommandError(agent, program, `file ${arg} not found (looked at ${path})`);
    } else argv.push(arg);
  }
  return { argv, files };
}

/** An argument that names a script by its extension: it must exist. */
const SCRIPT = /\.(mjs|cjs|js|ts|mts|cts|py|rb|pl|sh|php|lua)$/;

/** The recorded files (by argument) whose contents changed or that are gone now: resume refuses them. */
export function changedAgentFiles(recorded: readonly AgentFile[], current: readonly AgentFile[]): string[] {
  const now = new Map(current.map((f) => [f.arg, f.sha256]));
  return recorded.filter((f) => now.get(f.arg) !== f.sha256).map((f) => f.arg);
}

/** Why `path` cannot be executed, or null when it can. */
async function notRunnable(path: string): Promise<string | null> {
  try {
    if (!(await stat(path)).isFile()) return 'is not a file';
  } catch {
    return 'not found';
  }
  try {
    await access(path, constants.X_OK);
    return null;
  } catch {
    return 'is not executable (chmod +x it, or name its interpreter first)';
  }
}

async function onPath(program: string, searchPath: string, cwd: string): Promise<string | null> {
  // An empty PATH entry is the current folder, as for a shell; relative entries resolve from cwd.
  for (const dir of searchPath.split(delimiter)) {
    const candidate = resolve(cwd, dir === '' ? '.' : dir, program);
    if ((await notRunnable(candidate)) === null) return candidate;
  }
  return null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

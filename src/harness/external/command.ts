// How an external agent is described: the `--agent` flag's text split into argv, the config
// file's `agents` entry, the variables an agent may never be given, and the command resolved
// against the file system (program found, file arguments made absolute and hashed). The resolved
// form is what run.json records, what resume compares and what a worker checks before a job.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { delimiter, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import type { AgentCommandSpec } from './types.js';

/** The `--agent` flag's text cannot be read as a command. */
export class AgentFlagError extends UserError {
  override name = 'AgentFlagError';
}

/** An agent's configuration asks for something it may not have (a refused variable). */
export class AgentConfigError extends UserError {
  override name = 'AgentConfigError';
}

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

const AGENT_NAME = /^([A-Za-z][A-Za-z0-9_.-]*)=/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Shell operators are not run (there is no shell); a command that uses one would silently pass it
// to the program as an argument, so it is refused unless quoted.
const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')']);

/**
 * Read `--agent "CMD ARGS"` or `--agent NAME="CMD ARGS"`. NAME is taken when the text before the
 * first `=` is a bare name (a letter, then letters, digits, `_`, `.`, `-`): so a command that
 * starts with `VAR=value` is read as agent VAR (quote it, `'VAR=value' cmd`, to keep it a word).
 * The rest is split into words as a POSIX shell would (single quotes, double quotes with `\`
 * escaping `$ \` " \\` and newline, `\` outside quotes) with no expansion of anything: `$HOME`,
 * `~` and `*` stay as written. Unquoted shell operators are refused. After `NAME=`, a value that
 * is one quoted word (`a="node x.mjs"` passed without a shell) is that word's text, split again.
 */
export function parseAgentFlag(value: string): { name: string | null; command: string[] } {
  const named = AGENT_NAME.exec(value);
  const name = named ? named[1]! : null;
  const text = named ? value.slice(named[0].length) : value;
  const label = name === null ? '--agent' : `--agent ${name}`;
  let command = splitWords(text, label);
  // `NAME="CMD ARGS"` that reached evalog with its quotes (no shell in between) reads as a shell
  // assignment would: the quoted value is the command's text.
  if (name !== null && command.length === 1 && /^['"]/.test(text)) command = splitWords(command[0]!, label);
  if (command.length === 0) throw new AgentFlagError(`${label}: no command given`);
  const empty = command.indexOf('');
  if (empty >= 0) throw new AgentFlagError(`${label}: word ${empty + 1} of the command is empty`);
  return { name, command };
}

function splitWords(text: string, label: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i += 1;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw new AgentFlagError(`${label}: the command ends with a lone backslash`);
      // Backslash-newline joins lines and adds nothing, as in a shell.
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new AgentFlagError(`${label}: unterminated single quote in ${JSON.stringify(text)}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      const [quoted, next] = doubleQuoted(text, i + 1, label);
      word += quoted;
      inWord = true;
      i = next;
    } else if (OPERATORS.has(c)) {
      throw new AgentFlagError(`${label}: unquoted '${c}' (no shell runs the command; quote it, or run sh -c '...')`);
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The text of a double-quoted part starting after its `"`, and the index after its closing `"`. */
function doubleQuoted(text: string, start: number, label: string): [string, number] {
  let out = '';
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') return [out, i + 1];
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      if (next !== '\n') out += next;
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  throw new AgentFlagError(`${label}: unterminated double quote in ${JSON.stringify(text)}`);
}

/** Exact names an agent may never be passed: evalog sets them, or they are the endpoint's own. */
export const REFUSED_PASS_THROUGH: readonly string[] = ['PATH', 'HOME', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'EVALOG_API_KEY', 'EVALOG_BASE_URL'];
/** Prefixes of refused names: the job contract's namespace and the OpenAI client's configuration. */
export const REFUSED_PREFIXES: readonly string[] = ['EVALOG_', 'OPENAI_'];
/** A name with one of these as a `_`-separated word (any case) looks like a credential and is refused. */
export const REFUSED_WORDS: readonly string[] = ['KEY', 'APIKEY', 'SECRET', 'SECRETS', 'TOKEN', 'TOKENS', 'PASSWORD', 'PASSWD', 'CREDENTIAL', 'CREDENTIALS'];

/**
 * Why `name` may not be passed through to an agent, or null when it may. The rule: names evalog
 * sets (PATH, HOME, EVALOG_*), the OpenAI client's variables (OPENAI_*: the agent's client is
 * configured by the job alone), and names that look like credentials (a word KEY, TOKEN, SECRET,
 * PASSWORD, ... e.g. ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY).
 */
export function passThroughRefusal(name: string): string | null {
  if (!VARIABLE_NAME.test(name)) return 'not a variable name';
  const upper = name.toUpperCase();
  if (REFUSED_PASS_THROUGH.includes(upper) || REFUSED_PREFIXES.some((p) => upper.startsWith(p))) return 'set by evalog for every job';
  if (upper.split('_').some((word) => REFUSED_WORDS.includes(word))) return 'looks like a credential';
  return null;
}

/** Refuse the first name of `names` an agent may not be given, naming the agent and the variable. */
export function checkPassThrough(names: readonly string[], agentName: string): void {
  for (const name of names) {
    const why = passThroughRefusal(name);
    if (why !== null) throw new AgentConfigError(`agent ${agentName}: env may not pass ${name} through (${why})`);
  }
}

/** An agent in a config file (`agents: { NAME: {...} }`); `cwd` is left for the config layer to resolve. */
export const AgentConfig = z
  .object({
    command: z.array(z.string().min(1)).min(1),
    cwd: z.string().min(1).optional(),
    env: z
      .array(
        z.string().superRefine((name, ctx) => {
          const why = passThroughRefusal(name);
          if (why !== null) ctx.addIssue({ code: 'custom', message: `${name} may not be passed through (${why})` });
        }),
      )
      .optional(),
    limits: z
      .object({
        modelCalls: z.number().int().positive().optional(),
        tokens: z.number().int().positive().nullable().optional(),
        timeLimitMs: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
/** An agent as a config file gives it. */
export type AgentConfig = z.infer<typeof AgentConfig>;

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
    } else argv.push(arg);
  }
  return { argv, files };
}

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

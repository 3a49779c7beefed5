#!/usr/bin/env node
// Claude Code as an evalog external agent: `--agent "node examples/agents/claude-code/agent.mjs"`.
// It reads the job contract of docs/agents.md, runs `claude -p` headless in the workspace against
// the job's Anthropic Messages proxy (ANTHROPIC_BASE_URL, the per-job token), and writes Claude
// Code's final text to EVALOG_RESULT. The work itself is the workspace, graded after it exits.
//
// Claude Code writes its state (.claude.json, .claude/) into HOME, and evalog's HOME is the
// workspace, so the child gets a HOME of its own beside the workspace: the workspace's diff holds
// only what the model changed. Everything the child could reach besides the proxy is switched off.
//
// Flags: --bin PATH (the claude executable; default: this repository's @anthropic-ai/claude-code,
// else `claude` on PATH), --thinking (let Claude Code ask for extended thinking).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The built-in tools offered to the model: files and a shell, nothing that reaches the network. */
const TOOLS = 'Bash,Read,Write,Edit,Glob,Grep';
/** Allowed without a prompt. Write and Edit are left to acceptEdits, which allows them in cwd only. */
const ALLOWED = 'Bash,Read,Glob,Grep';

/** Exit codes: 0 done (an answer, or a limit evalog set), 1 anything that went wrong. */
class AgentStop extends Error {
  constructor(message, exitCode) {
    super(message);
    this.name = 'AgentStop';
    this.exitCode = exitCode;
  }
}

function requireEnv(name) {
  const value = process.env[name];
  if (!value) throw new AgentStop(`${name} is not set (is this process started by evalog?)`, 1);
  return value;
}

function parseFlags(argv) {
  const flags = { bin: null, thinking: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bin' && argv[i + 1]) flags.bin = argv[++i];
    else if (argv[i] === '--thinking') flags.thinking = true;
    else throw new AgentStop(`unknown flag ${JSON.stringify(argv[i])} (known: --bin PATH, --thinking)`, 1);
  }
  return flags;
}

/** The repository's claude binary (resolved from this file, so any cwd works), else the one on PATH. */
function claudeBin() {
  try {
    const pkg = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/package.json');
    const bin = join(dirname(pkg), 'bin', 'claude.exe');
    if (existsSync(bin)) return bin;
  } catch {
    // not installed next to this file: fall back to PATH
  }
  return 'claude';
}

/** The text of a chat message's content (a string, or parts of which the text ones count). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

/** The task's messages as Claude Code's inputs: system messages appended to its system prompt, the rest as the prompt. */
function promptOf(messages) {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content));
  const rest = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  // A single user message is the usual task; a longer conversation is given as a transcript.
  const prompt = rest.length === 1 && rest[0].role === 'user' ? textOf(rest[0].content) : rest.map((m) => `${m.role}: ${textOf(m.content)}`).join('\n\n');
  if (prompt.trim() === '') throw new AgentStop('the task has no user message to give Claude Code (messages)', 1);
  return { system: system.join('\n\n'), prompt };
}

/** A UUID made from the job's identity, so a resumed job sends the session id its record has. */
function sessionId(task) {
  const h = createHash('sha256').update(`${task.run}\n${task.job}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Claude Code's HOME beside the workspace, with a fixed device id (it would pick a random one). */
function makeHome(task) {
  const home = join(dirname(requireEnv('EVALOG_TASK')), 'claude-home');
  mkdirSync(home, { recursive: true });
  const userID = createHash('sha256').update(`evalog-device\n${task.run}\n${task.job}`).digest('hex');
  const config = join(home, '.claude.json');
  if (!existsSync(config)) writeFileSync(config, `${JSON.stringify({ userID })}\n`);
  return home;
}

function childEnv(home, flags) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ANTHROPIC_BASE_URL: requireEnv('ANTHROPIC_BASE_URL'),
    ANTHROPIC_API_KEY: requireEnv('ANTHROPIC_API_KEY'),
    // No update checks, telemetry, error reports, title or other side requests: only model calls.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // evalog retries failed upstream calls itself; a client retry would be a second, unrecorded ask.
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
  // The proxy's upstream is chat completions, which has no Anthropic thinking blocks to carry.
  if (!flags.thinking) env.MAX_THINKING_TOKENS = '0';
  for (const name of ['LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

function run(bin, args, options, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { ...options, stdio: ['pipe', 'pipe', 'inherit'] });
    const out = [];
    // Also on stderr, which evalog records: the CLI's own account of the run.
    child.stdout.on('data', (c) => {
      out.push(c);
      process.stderr.write(c);
    });
    child.on('error', (err) => reject(new AgentStop(`cannot start ${bin}: ${err.message}`, 1)));
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8') }));
    // A CLI that exits before reading its stdin is reported by its exit, not by a broken pipe.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** What Claude Code's `--output-format json` result means for the job. */
function outcomeOf(stdout, code) {
  let result;
  try {
    result = JSON.parse(stdout.trim().split('\n').pop() ?? '');
  } catch {
    return { exitCode: 1, answer: null, note: `claude exited ${code} without a JSON result` };
  }
  if (result?.type !== 'result') return { exitCode: 1, answer: null, note: `claude exited ${code} without a result object` };
  if (!result.is_error) return { exitCode: 0, answer: typeof result.result === 'string' ? result.result : '', note: null };
  // A budget refusal (403) and the turn limit are evalog's limits, not the agent's failure.
  if (result.api_error_status === 403) return { exitCode: 0, answer: null, note: 'stopped: the proxy refused a call (budget)' };
  if (result.subtype === 'error_max_turns') return { exitCode: 0, answer: null, note: 'stopped at limits.modelCalls without a final reply' };
  const why = typeof result.result === 'string' ? result.result : (result.errors ?? []).join('; ');
  return { exitCode: 1, answer: null, note: `claude failed (${result.subtype ?? 'error'}): ${why}`.slice(0, 500) };
}

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const task = JSON.parse(readFileSync(requireEnv('EVALOG_TASK'), 'utf8'));
  if (typeof task.model !== 'string' || task.model === '') throw new AgentStop('the task file has no model (model)', 1);
  if (!Array.isArray(task.messages)) throw new AgentStop('the task file has no messages (messages)', 1);
  // The CLI's own tools do the work; the suite's MCP tools, if any, are not offered to it.
  if (Array.isArray(task.tools) && task.tools.length > 0)
    process.stderr.write(`claude-code agent: the task's tools (${task.tools.map((t) => t.name).join(', ')}) are not offered; Claude Code uses its own\n`);
  const { system, prompt } = promptOf(task.messages);
  const home = makeHome(task);
  const args = [
    '-p',
    '--output-format',
    'json',
    '--model',
    task.model,
    '--max-turns',
    String(task.limits?.modelCalls ?? 50),
    '--permission-mode',
    'acceptEdits',
    '--tools',
    TOOLS,
    '--allowedTools',
    ALLOWED,
    '--no-session-persistence',
    '--disable-slash-commands',
    '--strict-mcp-config',
    '--session-id',
    sessionId(task),
    ...(system ? ['--append-system-prompt', system] : []),
  ];
  const cwd = process.env.EVALOG_WORKSPACE ?? process.cwd();
  // The prompt goes on stdin: it may be long, and it may start with a dash.
  const { code, stdout } = await run(flags.bin ?? claudeBin(), args, { cwd, env: childEnv(home, flags) }, prompt);
  const outcome = outcomeOf(stdout, code);
  if (outcome.note) process.stderr.write(`claude-code agent: ${outcome.note}\n`);
  if (outcome.answer !== null) {
    if (process.env.EVALOG_RESULT) writeFileSync(process.env.EVALOG_RESULT, outcome.answer);
    else process.stdout.write(`${outcome.answer}\n`);
  }
  process.exitCode = outcome.exitCode;
}

main().catch((err) => {
  process.stderr.write(`claude-code agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof AgentStop ? err.exitCode : 1;
});

#!/usr/bin/env node
// Codex CLI as an evalog external agent: `--agent "node examples/agents/codex/agent.mjs"`.
// It reads the job contract of docs/agents.md, writes a config.toml that makes the job's proxy
// (OPENAI_BASE_URL, the per-job token) Codex's only model provider, runs `codex exec` headless in
// the workspace, and writes Codex's last message to EVALOG_RESULT. The work itself is the
// workspace, graded after it exits.
//
// Codex 0.171 speaks only OpenAI Responses to a custom provider (`wire_api = "chat"` is refused).
// CODEX_HOME and the commands' HOME sit beside the workspace, so the workspace's diff holds only
// what the model changed. Features that reach the network or add hosted tools are switched off.
//
// Flags: --bin PATH (the codex launcher; default: this repository's @openai/codex, else `codex` on
// PATH), --sandbox MODE (workspace-write, the default; danger-full-access where Codex's bundled
// bubblewrap cannot run, e.g. without unprivileged user namespaces).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'];
/** Off: each would add a tool the proxy cannot carry, or a request to somewhere other than the proxy. */
const FEATURES_OFF = [
  'goals',
  'apps',
  'plugins',
  'remote_plugin',
  'tool_suggest',
  'image_generation',
  'browser_use',
  'computer_use',
  'skill_search',
  'in_app_updates',
];

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
  const flags = { bin: null, sandbox: 'workspace-write' };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--bin' && argv[i + 1]) flags.bin = argv[++i];
    else if (argv[i] === '--sandbox' && SANDBOXES.includes(argv[i + 1])) flags.sandbox = argv[++i];
    else throw new AgentStop(`unknown flag ${JSON.stringify(argv[i])} (known: --bin PATH, --sandbox ${SANDBOXES.join('|')})`, 1);
  }
  return flags;
}

/** The repository's codex launcher (resolved from this file, so any cwd works), run by this node; else `codex` on PATH. */
function codexCommand(bin) {
  if (bin) return { file: bin, pre: [] };
  try {
    const launcher = createRequire(import.meta.url).resolve('@openai/codex/bin/codex.js');
    return { file: process.execPath, pre: [launcher] };
  } catch {
    return { file: 'codex', pre: [] };
  }
}

/** The text of a chat message's content (a string, or parts of which the text ones count). */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

/** The task's messages as Codex's inputs: system messages as developer instructions, the rest as the prompt. */
function promptOf(messages) {
  const system = messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content));
  const rest = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  // A single user message is the usual task; a longer conversation is given as a transcript.
  const prompt = rest.length === 1 && rest[0].role === 'user' ? textOf(rest[0].content) : rest.map((m) => `${m.role}: ${textOf(m.content)}`).join('\n\n');
  if (prompt.trim() === '') throw new AgentStop('the task has no user message to give Codex (messages)', 1);
  return { system: system.join('\n\n'), prompt };
}

/** A TOML basic string. JSON's escapes are TOML's, except that TOML also wants DEL escaped. */
const tomlString = (s) => JSON.stringify(s).replace(/\x7f/g, '\\u007f');

/** config.toml: the proxy as the only provider, no retries (evalog retries), nothing else switched on. */
function configToml(task, system) {
  return [
    `model = ${tomlString(task.model)}`,
    'model_provider = "evalog"',
    'web_search = "disabled"',
    'check_for_update_on_startup = false',
    ...(system ? [`developer_instructions = ${tomlString(system)}`] : []),
    '',
    '[model_providers.evalog]',
    'name = "evalog"',
    `base_url = ${tomlString(requireEnv('OPENAI_BASE_URL'))}`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[agents]',
    'enabled = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[history]',
    'persistence = "none"',
    '',
    '[features]',
    ...FEATURES_OFF.map((f) => `${f} = false`),
    '',
  ].join('\n');
}

function childEnv(home, codexHome) {
  const env = { PATH: process.env.PATH ?? '', HOME: home, CODEX_HOME: codexHome, OPENAI_API_KEY: requireEnv('OPENAI_API_KEY') };
  for (const name of ['LANG', 'LC_ALL', 'LC_CTYPE', 'TMPDIR']) if (process.env[name]) env[name] = process.env[name];
  return env;
}

function run(command, args, options, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, [...command.pre, ...args], { ...options, stdio: ['pipe', 'pipe', 'inherit'] });
    const out = [];
    // Also on stderr, which evalog records: the CLI's own account of the run.
    child.stdout.on('data', (c) => {
      out.push(c);
      process.stderr.write(c);
    });
    child.on('error', (err) => reject(new AgentStop(`cannot start ${command.file}: ${err.message}`, 1)));
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8') }));
    // A CLI that exits before reading its stdin is reported by its exit, not by a broken pipe.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** Why the turn failed, from `codex exec --json`'s events (the last `turn.failed` or `error`). */
function failureOf(stdout) {
  let why = null;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const e = JSON.parse(line);
      if (e.type === 'turn.failed' && typeof e.error?.message === 'string') why = e.error.message;
      else if (e.type === 'error' && typeof e.message === 'string') why ??= e.message;
    } catch {
      // not an event line
    }
  }
  return why;
}

/** What Codex's exit means for the job. */
function outcomeOf(code, stdout, lastMessage) {
  if (code === 0) return { exitCode: 0, answer: lastMessage, note: null };
  const why = failureOf(stdout) ?? `codex exited ${code}`;
  // A budget refusal (403) is evalog's decision, not the agent's failure.
  if (/\bstatus 403\b/.test(why)) return { exitCode: 0, answer: null, note: `stopped: the proxy refused a call (budget): ${why}` };
  return { exitCode: 1, answer: null, note: `codex failed: ${why}`.slice(0, 500) };
}

async function main() {
  const flags = parseFlags(process.argv.slice(2));
  const taskFile = requireEnv('EVALOG_TASK');
  const task = JSON.parse(readFileSync(taskFile, 'utf8'));
  if (typeof task.model !== 'string' || task.model === '') throw new AgentStop('the task file has no model (model)', 1);
  if (!Array.isArray(task.messages)) throw new AgentStop('the task file has no messages (messages)', 1);
  // The CLI's own tools do the work; the suite's MCP tools, if any, are not offered to it.
  if (Array.isArray(task.tools) && task.tools.length > 0)
    process.stderr.write(`codex agent: the task's tools (${task.tools.map((t) => t.name).join(', ')}) are not offered; Codex uses its own\n`);
  const { system, prompt } = promptOf(task.messages);

  const jobDir = dirname(taskFile);
  const codexHome = join(jobDir, 'codex-home');
  const home = join(jobDir, 'codex-user-home');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), configToml(task, system));
  const last = join(jobDir, 'codex-last-message.txt');

  const args = ['exec', '--skip-git-repo-check', '--ephemeral', '--sandbox', flags.sandbox, '--json', '--color', 'never', '--output-last-message', last, '-'];
  const cwd = process.env.EVALOG_WORKSPACE ?? process.cwd();
  // The prompt goes on stdin (`-`): it may be long, and it may start with a dash.
  const { code, stdout } = await run(codexCommand(flags.bin), args, { cwd, env: childEnv(home, codexHome) }, prompt);
  const lastMessage = existsSync(last) ? readFileSync(last, 'utf8') : '';
  const outcome = outcomeOf(code, stdout, lastMessage);
  if (outcome.note) process.stderr.write(`codex agent: ${outcome.note}\n`);
  if (outcome.answer !== null) {
    if (process.env.EVALOG_RESULT) writeFileSync(process.env.EVALOG_RESULT, outcome.answer);
    else process.stdout.write(`${outcome.answer}\n`);
  }
  process.exitCode = outcome.exitCode;
}

main().catch((err) => {
  process.stderr.write(`codex agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = err instanceof AgentStop ? err.exitCode : 1;
});

// Scripted play of the coding suite. Each reply is decided from the chat request alone (the task
// text in its messages, the tools it offers, the tool results so far), never from the case's
// hidden tests or any answer key, whoever sends it: the built-in parent and worker, node-agent
// over MCP, Claude Code or Codex CLI with their own tools. The worker's steps: read TASK.md when
// the brief lacks the statement, read the file to write, write it, run the tests, then answer in
// one line. It writes working code only for a rule it can parse (player-rules.ts); for another
// rule, a function that knows the examples only; for a task with no function to write, nothing.
import { messageText, type ChatMessage, type ChatRequest, type Player, type PlayerReply, type PlayerToolCall } from '../../providers/scripted/index.js';
import { TASK_FILE } from './cases.js';
import { readStatement, solution } from './player-rules.js';
import { actionOfCall, callOf, toolboxOf, type Action, type Toolbox } from './player-tools.js';
import { pointerBrief, TAGS } from './prompts.js';

const PARENT = /\[evalog:coding:parent mode=(full|pointer)\]/;
// Claude Code names its working folder in its system prompt; its file tools want absolute paths.
const CWD = /Primary working directory: (\S+)/;
const FAILED = /^error\b|<tool_use_error>|\bexit(?:ed with)? code:? [1-9]|"exit_code":\s*[1-9]|Process exited with code [1-9]/im;
const TESTS_FAILED = /\bFAIL\b|\bnot ok\b|# fail [1-9]|✖/;

/** The coding suite's scripted player (parent, worker and external agents alike). */
export const codingPlayer: Player = (request) => {
  const texts = request.messages.map(messageText);
  const system = request.messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map(messageText)
    .join('\n');
  const parent = PARENT.exec(system);
  if (parent) return playParent(request, parent[1] as 'full' | 'pointer');
  if (!texts.some((t) => t.includes(TAGS.worker) || t.includes(TAGS.agent))) return null;
  return playWorker(request, CWD.exec(system)?.[1] ?? null);
};

function playParent(request: ChatRequest, mode: 'full' | 'pointer'): PlayerReply {
  const task = messageText(request.messages.find((m) => m.role === 'user') ?? { role: 'user', content: '' }).trim();
  const brief = mode === 'full' ? task : pointerBrief(task);
  return { content: null, toolCalls: [{ name: 'task', arguments: JSON.stringify({ mode, brief }) }] };
}

/** One earlier tool call of the conversation and what it got back (null: no result yet). */
interface Past {
  kind: Action['kind'];
  args: string;
  result: string | null;
}

function playWorker(request: ChatRequest, cwd: string | null): PlayerReply {
  const box = toolboxOf(request.tools ?? [], cwd);
  const past = history(request.messages);
  const told = request.messages
    .filter((m) => m.role === 'user' || m.role === 'tool')
    .map((m) => (m.role === 'tool' ? toolText(messageText(m)) : messageText(m)))
    .join('\n');
  const spec = readStatement(told);
  const did = (kind: Action['kind'], path?: string) => past.some((p) => p.kind === kind && (path === undefined || p.args.includes(path)));
  const act = (a: Action): PlayerReply | null => {
    const call: PlayerToolCall | null = callOf(box, a);
    return call ? { content: null, toolCalls: [call] } : null;
  };
  if (!spec.fn) {
    if (!did('read', TASK_FILE)) {
      const read = act({ kind: 'read', path: TASK_FILE });
      if (read) return read;
    }
    const mentioned = /`(src\/[\w./-]+\.js)`/.exec(told)?.[1];
    if (mentioned !== undefined && !did('read', mentioned)) {
      const read = act({ kind: 'read', path: mentioned });
      if (read) return read;
    }
    return { content: 'I found no FUNCTION line with a rule I can follow in the task, so I changed nothing.' };
  }
  const { path, name } = spec.fn;
  const written = solution(spec)!;
  if (!did('read', path)) {
    const read = act({ kind: 'read', path });
    if (read) return read;
  }
  const writes = past.filter((p) => p.kind === 'write');
  if (writes.length === 0)
    return act({ kind: 'write', path, content: written.source }) ?? { content: `I have no tool that writes files, so I did not write ${path}.` };
  const result = writes.at(-1)!.result ?? '';
  if (FAILED.test(result)) return { content: `Writing ${path} failed: ${firstLine(result)}` };
  const tests = past.filter((p) => p.kind === 'test');
  if (tests.length === 0) {
    const test = act({ kind: 'test' });
    if (test) return test;
  }
  const outcome = tests.length === 0 ? 'not run' : TESTS_FAILED.test(tests.at(-1)!.result ?? '') ? 'some fail' : 'they pass';
  const what = written.understood
    ? `Wrote ${name} in ${path} following the rule.`
    : `Wrote ${name} in ${path}, but I could not follow its rule: the function knows the task's examples only.`;
  return { content: `${what} Tests: ${outcome}.` };
}

/** The tool calls of the conversation, in order, each with its result. */
function history(messages: readonly ChatMessage[]): Past[] {
  const results = new Map<string, string>();
  for (const m of messages) if (m.role === 'tool' && m.tool_call_id !== undefined) results.set(m.tool_call_id, toolText(messageText(m)));
  return messages.flatMap((m) =>
    (m.tool_calls ?? []).map((t) => ({
      kind: actionOfCall(t.function.name, t.function.arguments),
      args: t.function.arguments,
      result: results.get(t.id) ?? null,
    })),
  );
}

// A tool result as plain lines: Codex may wrap a command's output in JSON, Claude Code numbers the lines it reads.
function toolText(text: string): string {
  let out = text;
  try {
    const v = JSON.parse(text) as { output?: unknown };
    if (typeof v?.output === 'string') out = v.output;
  } catch {
    // plain text
  }
  return out.replace(/^ *\d+(?:\t|→)/gm, '');
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0]!.slice(0, 200);
}

/** The player's tool choice for a request's tools, for tests. */
export function toolboxFor(request: ChatRequest): Toolbox {
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map(messageText)
    .join('\n');
  return toolboxOf(request.tools ?? [], CWD.exec(system)?.[1] ?? null);
}

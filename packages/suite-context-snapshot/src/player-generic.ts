// The scripted play of a protocol-folder run: tasks it has never seen, prompts that are the user's
// protocol text (no evalog tag), decided from each request alone and deterministically. The lead
// calls `task` in the context mode its policy names, with the current task (snapshot) or the task
// and the history it sees (isolated, at most 700 words). The worker reads the documents its
// messages name, writes a plausible artifact from its brief (a JSON object with the keys the brief
// lists, or a Python function of the name the brief gives), runs the public checks, and reports.
// Its artifacts need not be correct: it is there to run the protocol end to end, not to solve it.
import type { ChatRequest, PlayerReply } from 'evalog';
import { messageText } from 'evalog';
import { readSnapshot } from './player-lead.js';
import { namedDocuments } from './player-view.js';
import { MAX_HANDOFF_WORDS, SNAPSHOT_TAG } from './prompts.js';

const WORKER_TOOL_NAMES = ['read_reference', 'run_public_checks', 'write_artifact'];

const call = (name: string, args: object): PlayerReply => ({ content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] });
const toolNames = (request: ChatRequest): string[] => (request.tools ?? []).map((t) => t.function.name).sort();

/** Plays a protocol run's lead or worker request; null when the request is neither. */
export function playProtocolRequest(request: ChatRequest): PlayerReply | null {
  const names = toolNames(request);
  if (names.length === 1 && names[0] === 'task' && offersContextMode(request)) return playProtocolLead(request);
  if (names.join() === WORKER_TOOL_NAMES.join()) return playProtocolWorker(request);
  return null;
}

function offersContextMode(request: ChatRequest): boolean {
  const props = (request.tools![0]!.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props !== undefined && Object.hasOwn(props, 'context_mode');
}

/** The context mode a lead's system prompt asks for: the last `context_mode` it names a mode for (its policy comes last). */
export function policyMode(system: string): 'isolated' | 'snapshot' {
  let mode: 'isolated' | 'snapshot' = 'isolated';
  for (const m of system.matchAll(/context_mode/g)) {
    const named = /isolated|snapshot/.exec(system.slice(m.index + 'context_mode'.length, m.index + 'context_mode'.length + 40));
    if (named) mode = named[0] as typeof mode;
  }
  return mode;
}

function playProtocolLead(request: ChatRequest): PlayerReply | null {
  const brief = /^Current task:\n([\s\S]*)$/.exec(messageText(request.messages.at(-1)!))?.[1];
  if (brief === undefined) return null;
  const system = request.messages[0]?.role === 'system' ? messageText(request.messages[0]) : '';
  const mode = policyMode(system);
  const snapshot = request.messages.map(messageText).find((t) => t.startsWith(SNAPSHOT_TAG)) ?? '';
  const prompt = mode === 'snapshot' ? brief : isolatedPrompt(brief, snapshot);
  return call('task', { subagent_type: 'general-purpose', context_mode: mode, description: 'delegated task', prompt });
}

/** The current task, then the history and summary as the lead sees them, cut to the policy's 700 words. */
function isolatedPrompt(brief: string, snapshot: string): string {
  const { turns, summary } = readSnapshot(snapshot);
  const text = [
    brief,
    '',
    'What the conversation so far says (oldest first):',
    '',
    ...turns,
    ...(summary ? ['', `Summary of earlier context: ${summary}`] : []),
  ].join('\n');
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= MAX_HANDOFF_WORDS ? text : words.slice(0, MAX_HANDOFF_WORDS).join(' ');
}

function playProtocolWorker(request: ChatRequest): PlayerReply {
  // Everything it was told (the snapshot, if any, and its task); the task itself is the last of it.
  const said = request.messages.filter((m) => m.role === 'user').map(messageText);
  const told = said.join('\n\n');
  const calls = request.messages.flatMap((m) => m.tool_calls ?? []).map((c) => ({ name: c.function.name, args: parseArgs(c.function.arguments) }));
  const asked = new Set(calls.filter((c) => c.name === 'read_reference').map((c) => String(c.args.document)));
  const unread = namedDocuments(told).find((d) => !asked.has(d));
  if (unread) return call('read_reference', { document: unread });
  const writes = calls.filter((c) => c.name === 'write_artifact').length;
  if (writes === 0) return call('write_artifact', { content: plausibleArtifact(said.at(-1) ?? '') });
  if (calls.at(-1)?.name === 'write_artifact') return call('run_public_checks', {});
  const last = request.messages.at(-1);
  const passed = last?.role === 'tool' && /"public_checks_passed":\s*true/.test(messageText(last));
  return { content: `Saved revision ${writes} and ran the public checks on it: they ${passed ? 'pass' : 'do not pass'}.` };
}

/**
 * An artifact of the kind the brief describes: a Python function of the name (and parameters) it
 * gives, returning None; else a JSON object with the keys it lists, each with the value it states
 * (`key='x'`, `key=3`) or null.
 */
export function plausibleArtifact(brief: string): string {
  const fn = /Python/.test(brief) ? /\b([A-Za-z_]\w*)\(((?:\s*[A-Za-z_]\w*\s*,?)*)\)/.exec(brief) : null;
  if (fn) return `def ${fn[1]}(${fn[2]!.trim()}):\n    return None\n`;
  const listed = (/exactly (?:the |these )?(?:keys |fields )?:?\s*([\s\S]*?)(?:\.(?:\s|$)|\n|$)/.exec(brief)?.[1] ?? '').replace(/\([^)]*\)/g, '');
  const out: Record<string, unknown> = {};
  for (const [, key] of listed.matchAll(/\b([a-z_][a-z0-9_]*)\b(?:\s*=\s*(?:'[^']*'|"[^"]*"|\S+))?/g)) {
    if (key === 'and' || Object.hasOwn(out, key!)) continue;
    // A value the brief states anywhere (`key='x'`, `key=3`) is taken; none is null.
    const stated = new RegExp(String.raw`\b${key}\s*=\s*('[^']*'|"[^"]*"|-?\d+(?:\.\d+)?|true|false|True|False|null|None)`).exec(brief)?.[1];
    out[key!] = stated === undefined ? null : literal(stated);
  }
  return JSON.stringify(out);
}

function literal(raw: string): unknown {
  if (/^['"]/.test(raw)) return raw.slice(1, -1);
  if (/^(?:true|True)$/.test(raw)) return true;
  if (/^(?:false|False)$/.test(raw)) return false;
  if (/^(?:null|None)$/.test(raw)) return null;
  return Number(raw);
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

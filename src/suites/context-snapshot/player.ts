import { messageText, type ChatRequest, type Player, type PlayerReply } from '../../providers/scripted/index.js';
import type { Task } from './manifest.js';
import { MAX_HANDOFF_WORDS } from './prompts.js';
import { loadTasks } from './tasks.js';

const LEAD_TAG = '[evalog:context-snapshot:lead]';
const WORKER_TAG = '[evalog:context-snapshot:worker]';
const SNAPSHOT_TAG = '[parent-context-snapshot]';
/** How often a worker's first revision is wrong: more often when all it has is a handoff. */
const WRONG_FIRST = { isolated: 0.3, snapshot: 0.15 } as const;

let tasks: Task[] | null = null;
const findTask = (text: string) => (tasks ??= loadTasks()).find((t) => text.includes(t.brief)) ?? null;

/**
 * Scripted play of context-snapshot. It knows the bundled tasks (it is a test double, labelled
 * scripted everywhere): the lead hands off per its arm's policy; the worker reads the references,
 * sometimes saves a wrong first revision, runs the public checks, fixes it, and reports.
 */
export const contextSnapshotPlayer: Player = (request, ctx) => {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  if (system.includes(LEAD_TAG)) return playLead(request, system);
  if (system.includes(WORKER_TAG)) return playWorker(request, ctx.rng);
  return null;
};

function playLead(request: ChatRequest, system: string): PlayerReply | null {
  const current = messageText(request.messages.at(-1)!);
  const task = findTask(current);
  if (!task) return null;
  const mode = system.includes('Context mode: snapshot') ? 'snapshot' : 'isolated';
  const prompt = mode === 'snapshot' ? task.brief : handoff(task);
  return { content: null, toolCalls: [{ name: 'task', arguments: JSON.stringify({ subagent_type: 'general-purpose', mode, prompt }) }] };
}

// A complete handoff: the brief, what the user said (later corrections last), the summary and the documents.
function handoff(task: Task): string {
  const said = task.history.filter((m) => m.role === 'user').map((m) => `- ${m.content}`);
  const parts = [task.brief, '', 'Requirements from the conversation (later ones override earlier ones):', ...said];
  if (task.summary) parts.push('', `Earlier context: ${task.summary}`);
  const docs = Object.keys(task.references).sort();
  if (docs.length > 0) parts.push('', `Read these bundled documents: ${docs.join(', ')}.`);
  parts.push('', 'Save the artifact, run the public checks on the final revision, and report.');
  const words = parts.join('\n').split(/\s+/);
  return words.length <= MAX_HANDOFF_WORDS ? parts.join('\n') : `${words.slice(0, MAX_HANDOFF_WORDS - 1).join(' ')} …`;
}

function playWorker(request: ChatRequest, rng: () => number): PlayerReply | null {
  // The parent's prompt starts with (or is) the brief, in either arm.
  const task = findTask(request.messages.filter((m) => m.role === 'user').map(messageText).join('\n'));
  if (!task) return null;
  const arm = request.messages.some((m) => m.role === 'user' && messageText(m).startsWith(SNAPSHOT_TAG)) ? 'snapshot' : 'isolated';
  const calls = request.messages.flatMap((m) => m.tool_calls ?? []).map((c) => ({ name: c.function.name, args: c.function.arguments }));
  const call = (name: string, args: object): PlayerReply => ({ content: null, toolCalls: [{ name, arguments: JSON.stringify(args) }] });

  const read = new Set(calls.filter((c) => c.name === 'read_reference').map((c) => (JSON.parse(c.args) as { document: string }).document));
  const unread = Object.keys(task.references).sort().find((d) => !read.has(d));
  if (unread) return call('read_reference', { document: unread });

  const writes = calls.filter((c) => c.name === 'write_artifact').map((c) => (JSON.parse(c.args) as { content: string }).content);
  const last = calls.at(-1);
  if (writes.length === 0) {
    const wrong = rng() < WRONG_FIRST[arm] ? task.wrongSolutions[0]!.content : null;
    return call('write_artifact', { content: wrong ?? task.referenceSolution });
  }
  if (last?.name === 'write_artifact') return call('run_public_checks', {});
  // After the public check: a wrong revision is noticed (a failed check, or the requirements re-read) and fixed.
  if (writes.at(-1) !== task.referenceSolution) return call('write_artifact', { content: task.referenceSolution });
  return { content: `Done: saved revision ${writes.length}; the public checks pass on it.` };
}

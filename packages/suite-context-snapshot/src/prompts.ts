import type { ChatMessage, ToolSpec } from 'evalog';
import type { Task } from './manifest.js';

/** The two arms and the handoff mode each asks the parent for. */
export const ARMS = { isolated_handoff: 'isolated', snapshot: 'snapshot' } as const;
/** An arm of this suite. */
export type Arm = keyof typeof ARMS;

/** Longest isolated handoff the policy allows, in words. */
export const MAX_HANDOFF_WORDS = 700;

/**
 * The parent's one tool, with the argument fields of the production `task` tool (deer-flow's
 * task_tool at f649aa8f): `prompt` and `subagent_type` required; `acceptance_criteria`,
 * `description` and `context_mode` (isolated by default) optional. The descriptions are evalog's.
 */
export const TASK_TOOL: ToolSpec = {
  name: 'task',
  description: 'Hand one bounded task to a worker that runs in a context of its own.',
  parameters: {
    type: 'object',
    properties: {
      prompt: { type: 'string', description: 'What the worker is told to do' },
      subagent_type: { type: 'string', description: 'Kind of worker; "general-purpose" here' },
      acceptance_criteria: { type: 'array', items: { type: 'string' }, description: 'Optional requirements the worker must meet, handed on with the prompt' },
      description: { type: 'string', description: 'Optional short label of the task, for logs' },
      context_mode: {
        type: 'string',
        enum: ['isolated', 'snapshot'],
        description: 'isolated (the default): the worker gets the prompt alone; snapshot: it also gets the parent conversation and its summary',
      },
    },
    required: ['prompt', 'subagent_type'],
  },
};

/** The worker's three tools. */
export const WORKER_TOOLS: ToolSpec[] = [
  {
    name: 'write_artifact',
    description: 'Save the full content of your artifact as a new revision.',
    parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'], additionalProperties: false },
  },
  {
    name: 'read_reference',
    description: 'Read one bundled reference document by name.',
    parameters: { type: 'object', properties: { document: { type: 'string' } }, required: ['document'], additionalProperties: false },
  },
  {
    name: 'run_public_checks',
    description: 'Run the public checks on your last saved revision.',
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
];

// The tags let the scripted model find its role and the snapshot; a real model reads the prose.
const LEAD_SYSTEM =
  '[evalog:context-snapshot:lead] You are the lead agent. Delegate the current task to one worker by calling the ' +
  'task tool exactly once with subagent_type "general-purpose". The worker has exactly three tools: ' +
  'write_artifact(content) saves a revision of its artifact, read_reference(document) reads a bundled document by name, ' +
  'and run_public_checks() runs the public checks on its last revision. It cannot see this conversation unless ' +
  'a snapshot is supplied.';

const POLICY: Record<Arm, string> = {
  isolated_handoff:
    `Context mode: isolated. The worker sees only your prompt. Write a complete, self-contained handoff of at most ${MAX_HANDOFF_WORDS} ` +
    'words: the goal, every requirement and correction that still applies, the references to read, and how the result ' +
    'will be checked. Call task with context_mode "isolated".',
  snapshot:
    'Context mode: snapshot. A snapshot of this conversation is passed to the worker separately. Use the current ' +
    'task below, as written, as the prompt. Call task with context_mode "snapshot".',
};

/** The snapshot's tag: the scripted players find the parent context by it. */
export const SNAPSHOT_TAG = '[parent-context-snapshot]';

/** evalog's rendering of a parent context as one message: the turns so far and any summary of earlier context. */
export function renderSnapshot(history: readonly { role: string; content: string }[], summary: string | null): ChatMessage {
  const turns = history.map((m) => `[${m.role}] ${m.content}`).join('\n\n');
  const after = summary ? `\n\nSummary of earlier context:\n${summary}` : '';
  return { role: 'user', content: `${SNAPSHOT_TAG}\nConversation so far:\n\n${turns}${after}` };
}

/** The parent context of a bundled task as one message. */
export function snapshotMessage(task: Task): ChatMessage {
  return renderSnapshot(task.history, task.summary);
}

/**
 * The worker's task message: the parent's prompt, then any acceptance criteria it attached, as
 * data appended to the task (as the production executor hands them on), never in the system prompt.
 */
export function taskMessage(prompt: string, criteria: readonly string[] | null | undefined): ChatMessage {
  if (!criteria || criteria.length === 0) return { role: 'user', content: prompt };
  const list = criteria.map((c) => `- ${c}`).join('\n');
  return { role: 'user', content: `${prompt}\n\nAcceptance criteria from the lead (say in your final report how each one is met):\n${list}` };
}

/** The lead call: system prompt and policy, the parent context, and the current task. */
export function leadMessages(task: Task, arm: Arm): ChatMessage[] {
  return [{ role: 'system', content: `${LEAD_SYSTEM}\n\n${POLICY[arm]}` }, snapshotMessage(task), { role: 'user', content: `Current task:\n${task.brief}` }];
}

/**
 * The worker's start: its system prompt, the snapshot in the snapshot arm, and the parent's prompt
 * (with the criteria it attached). The system prompt names no bundled document: the worker learns
 * a name only from what the parent tells it or the snapshot shows.
 */
export function workerMessages(task: Task, arm: Arm, prompt: string, criteria: readonly string[] | null = null): ChatMessage[] {
  const system =
    '[evalog:context-snapshot:worker] You are a general-purpose worker with exactly three tools: write_artifact(content), ' +
    `read_reference(document) and run_public_checks(). ${artifactOf(task)} ` +
    'Save your artifact with write_artifact, run the public checks on the final revision, then reply with a short summary.';
  return [{ role: 'system', content: system }, ...(arm === 'snapshot' ? [snapshotMessage(task)] : []), taskMessage(prompt, criteria)];
}

/**
 * The task of one external agent (`--agent`), in place of the lead and its worker: what the worker
 * is given in its arm when the lead hands on the current task as written. So the snapshot arm has
 * the parent-context snapshot, and the isolated arm has the current task alone: no turn of the
 * conversation and no summary, since an isolated worker is told only what a handoff carries and
 * there is no lead here to write one.
 */
export function agentMessages(task: Task, arm: Arm): ChatMessage[] {
  const context =
    arm === 'snapshot'
      ? 'The conversation that led to the task comes first, as a snapshot; the current task follows it.'
      : 'You are given the current task only.';
  const system =
    '[evalog:context-snapshot:agent] You work on this task on your own, with exactly three tools: write_artifact(content), ' +
    `read_reference(document) and run_public_checks(). ${context} ${artifactOf(task)} ` +
    'Save your artifact with write_artifact, run the public checks on the final revision, then reply with a short summary.';
  return [{ role: 'system', content: system }, ...(arm === 'snapshot' ? [snapshotMessage(task)] : []), { role: 'user', content: task.brief }];
}

// What the artifact is: the same words for the worker and an agent. No document is named here.
function artifactOf(task: Task): string {
  return task.kind === 'json'
    ? 'Your artifact is one JSON object.'
    : `Your artifact is the source of one JavaScript function named ${task.functionName}: plain computational JavaScript, no imports, classes or globals.`;
}

// The requests of a protocol-folder run, built as the published runner builds them, from the text
// of the user's copy (evalog holds none of it): the lead gets LEAD_SYSTEM followed directly by its
// arm's dispatch policy, the parent-context snapshot, and the current task; the worker gets
// WORKER_SYSTEM, the snapshot in the snapshot arm, and the dispatched prompt with any acceptance
// criteria. The snapshot is evalog's own rendering of the case's history and summary.
import type { ChatMessage, ToolSpec } from 'evalog';
import type { ProtocolCase, ProtocolPrompts } from './protocol/types.js';
import { renderSnapshot, taskMessage, type Arm } from './prompts.js';

/** A protocol case as the suite's jobs use it: the case and the protocol's prompts. */
export interface ProtocolTask {
  /** Marks a protocol case apart from a bundled task. */
  variant: 'protocol';
  case: ProtocolCase;
  prompts: ProtocolPrompts;
}

/** The worker's three tools in a protocol run (evalog's descriptions; the names and arguments are the runner's). */
export const PROTOCOL_WORKER_TOOLS: ToolSpec[] = [
  {
    name: 'write_artifact',
    description: 'Save the whole artifact (raw JSON or Python source, no markdown fences) as a new revision.',
    parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
  },
  {
    name: 'read_reference',
    description: 'Read one bundled reference, by the exact name the task gives.',
    parameters: { type: 'object', properties: { document: { type: 'string' } }, required: ['document'] },
  },
  {
    name: 'run_public_checks',
    description: "Run the public checks (shape, or one basic example) on the last saved revision; they are not the task's full requirements.",
    parameters: { type: 'object', properties: {} },
  },
];

/** The parent context of a protocol case (a summary of '' is none). */
export function protocolSnapshot(c: ProtocolCase): ChatMessage {
  return renderSnapshot(c.history, c.summary === '' ? null : c.summary);
}

/** The lead call: the protocol's lead system prompt and the arm's policy (concatenated, as the runner does), the snapshot, the current task. */
export function protocolLeadMessages(t: ProtocolTask, arm: Arm): ChatMessage[] {
  const policy = t.prompts.dispatchPolicies[arm] ?? '';
  return [{ role: 'system', content: t.prompts.leadSystem + policy }, protocolSnapshot(t.case), { role: 'user', content: `Current task:\n${t.case.brief}` }];
}

/** The worker's start: the protocol's worker system prompt, the snapshot in the snapshot arm, the dispatched prompt. */
export function protocolWorkerMessages(t: ProtocolTask, arm: Arm, prompt: string, criteria: readonly string[] | null): ChatMessage[] {
  return [{ role: 'system', content: t.prompts.workerSystem }, ...(arm === 'snapshot' ? [protocolSnapshot(t.case)] : []), taskMessage(prompt, criteria)];
}

/** An external agent's task: the worker's start when the lead hands on the current task as written. */
export function protocolAgentMessages(t: ProtocolTask, arm: Arm): ChatMessage[] {
  return protocolWorkerMessages(t, arm, t.case.brief, null);
}

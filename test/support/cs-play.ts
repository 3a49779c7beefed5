// Plays one context-snapshot job in-process with a scripted player: the suite's own requests, tools
// and grader, the player answering each request as the scripted server would (no HTTP: a unit of the
// player's decisions; the end-to-end runs go through the real server).
import type { ChatMessage } from '../../src/providers/chat.js';
import type { Player } from '../../src/providers/scripted/index.js';
import { parseChatRequest } from '../../src/providers/scripted/index.js';
import { contextSnapshotDefinition } from '../../packages/suite-context-snapshot/src/suite.js';
import type { Task } from '../../packages/suite-context-snapshot/src/manifest.js';
import type { CheckResult } from '../../src/harness/suite/types.js';

/** What one played job gave: the handoff, the revisions, the hidden checks and the worker's last reply. */
export interface PlayedJob {
  brief: string;
  revisions: string[];
  checks: CheckResult[];
  passed: boolean;
  firstRevisionPassed: boolean | null;
  reply: string | null;
  toolCalls: string[];
}

const s = contextSnapshotDefinition;
const ask = (player: Player, messages: ChatMessage[], tools: { name: string; description: string; parameters: Record<string, unknown> }[]) => {
  const request = parseChatRequest({ model: 'scripted', messages, tools: tools.map((t) => ({ type: 'function', function: t })) });
  const reply = player(request, { rng: () => 0.5, seed: 0 });
  if (!reply) throw new Error('the player did not answer');
  return reply;
};

/** Plays the job of `task` in `arm` to its end (or 30 worker turns) and grades it. */
export async function playJob(player: Player, task: Task, arm: 'isolated_handoff' | 'snapshot'): Promise<PlayedJob> {
  const c = { id: task.id, data: task };
  const lead = s.agent.parentRequest(c, arm);
  const leadReply = ask(player, lead.messages, lead.tools);
  const delegation = s.agent.acceptDelegation(
    (leadReply.toolCalls ?? []).map((t, i) => ({ id: `lead-${i}`, name: t.name, arguments: t.arguments })),
    arm,
  );
  if (!delegation.ok) throw new Error(`delegation refused: ${delegation.message}`);
  const start = s.agent.workerRequest(c, arm, delegation.brief);
  const messages: ChatMessage[] = [...start.messages];
  const revisions: string[] = [];
  const toolCalls: string[] = [];
  let reply: string | null = null;
  for (let turn = 0; turn < 30 && reply === null; turn++) {
    const r = ask(player, messages, start.tools);
    const calls = (r.toolCalls ?? []).map((t, i) => ({ id: `t${turn}-${i}`, type: 'function' as const, function: { name: t.name, arguments: t.arguments } }));
    if (calls.length === 0) {
      reply = r.content ?? '';
      break;
    }
    messages.push({ role: 'assistant', content: r.content ?? null, tool_calls: calls });
    for (const tc of calls) {
      toolCalls.push(tc.function.name);
      const out = await s.agent.runTool(tc.function.name, tc.function.arguments, { case: c, artifact: revisions.at(-1) ?? null, revision: revisions.length });
      if (out.artifact !== undefined) revisions.push(out.artifact);
      messages.push({ role: 'tool', tool_call_id: tc.id, content: out.result });
    }
  }
  const graded = await s.grade(c, { final: revisions.at(-1) ?? null, first: revisions[0] ?? null, answer: reply });
  return {
    brief: delegation.brief,
    revisions,
    checks: graded.checks,
    passed: graded.checks.every((x) => x.passed),
    firstRevisionPassed: graded.firstRevisionPassed,
    reply,
    toolCalls,
  };
}

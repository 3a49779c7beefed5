import { messageText } from 'evalog';
import type { ChatRequest, Player, PlayerReply } from 'evalog';
import { playRecovery, playKeyNegation, playQueryFailure, playStaleEvidence } from './policies.js';
import { AGENT_TAG, QUERY_TAG } from './prompts.js';
import { loadScenarios, type Scenario } from './scenarios.js';
import type { Policy, Timeline } from './timeline.js';

export type { Policy, Step, Timeline } from './timeline.js';

/** The habits the instructions in a system prompt ask for; a prompt without them gets none. */
export function policyOf(system: string): Policy {
  return {
    rereadChanged: /may have changed since you read it, read it again/i.test(system),
    readToEnd: /read long material to the end/i.test(system),
    rerunQueries: /rerun any query that failed or was cut off/i.test(system),
    checkStateAfterReset: /after a context switch or a restart, call read_state/i.test(system),
  };
}

let scenarios: Scenario[] | null = null;
const findScenario = (task: string) => {
  scenarios ??= loadScenarios();
  return scenarios.find((s) => task.includes(s.task)) ?? null;
};

/**
 * Scripted play of context-engineering (a test double, labelled scripted everywhere). It reads the
 * conversation as an agent would and follows the instructions its system prompt carries (see
 * `policyOf`): with an instruction it does what the scenario checks for, without it it makes the
 * scenario's typical mistake. The cell's or preset's name plays no part.
 */
export const contextEngineeringPlayer: Player = (request) => {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  if (system.startsWith(QUERY_TAG)) return playQuery(request);
  if (!system.startsWith(AGENT_TAG)) return null;
  const scenario = findScenario(request.messages[1] ? messageText(request.messages[1]) : '');
  if (!scenario) return null;
  const policy = policyOf(system);
  const t = timeline(request);
  // An external agent goes on after submit (the built-in loop stops there): it is told the task is over.
  const submitted = t.steps.find((s) => s.name === 'submit' && s.result === 'submitted');
  if (submitted) return { content: String(submitted.args.answer ?? '') };
  switch (scenario.scenario) {
    case 'stale_evidence':
      return playStaleEvidence(t, policy);
    case 'key_negation':
      return playKeyNegation(t, policy);
    case 'query_failure':
      return playQueryFailure(t, policy);
    case 'recovery':
      return playRecovery(t, policy);
  }
};

const HOST_IN_RESULT = '\n[host] ';

function timeline(request: ChatRequest): Timeline {
  const asked = new Map<string, { name: string; args: Record<string, unknown> }>();
  const t: Timeline = { steps: [], notices: [] };
  for (const m of request.messages.slice(2)) {
    for (const c of m.tool_calls ?? []) asked.set(c.id, { name: c.function.name, args: parse(c.function.arguments) });
    if (m.role === 'tool' && m.tool_call_id && asked.has(m.tool_call_id)) {
      // An external agent owns its conversation, so the host's notices come appended to a tool result.
      const [result = '', ...notices] = messageText(m).split(HOST_IN_RESULT);
      t.steps.push({ ...asked.get(m.tool_call_id)!, result });
      for (const text of notices) t.notices.push({ after: t.steps.length, text });
    }
    if (m.role === 'user' && messageText(m).startsWith('[host] ')) t.notices.push({ after: t.steps.length, text: messageText(m).slice('[host] '.length) });
  }
  return t;
}

function parse(raw: string): Record<string, unknown> {
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return {};
  }
}

// A query answers with the line that starts with the quoted phrase, and where it is.
function playQuery(request: ChatRequest): PlayerReply {
  const user = messageText(request.messages.at(-1)!);
  const source = /^Material: source (\S+),/.exec(user)?.[1] ?? 'unknown';
  const phrase = /Question:[\s\S]*?"([^"]+)"/.exec(user)?.[1];
  const line = phrase ? [...user.matchAll(/^(\d+)\| (.*)$/gm)].find((m) => m[2]!.startsWith(phrase)) : undefined;
  return { content: line ? `${line[2]} (${source} L${line[1]})` : 'The material does not answer the question.' };
}

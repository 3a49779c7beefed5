import { messageText, type ChatRequest, type Player, type PlayerReply } from '../../providers/scripted/index.js';
import { PRESETS } from './config.js';
import { playRecovery, playKeyNegation, playQueryFailure, playStaleEvidence } from './policies.js';
import { AGENT_TAG, QUERY_TAG } from './prompts.js';
import { loadScenarios, type Scenario } from './scenarios.js';

/** A tool call the agent made and the result it got, in conversation order. */
export interface Step {
  name: string;
  args: Record<string, unknown>;
  result: string;
}

/** What the agent can see: its steps, the host's notices (with how many steps came before each). */
export interface Timeline {
  steps: Step[];
  notices: { after: number; text: string }[];
}

/** How the scripted agent behaves: verify-v1 re-reads, reads to the end, reruns and checks state; skim-v1 does none of it. */
export interface Policy {
  careful: boolean;
}

let scenarios: Scenario[] | null = null;
const findScenario = (task: string) => (scenarios ??= loadScenarios()).find((s) => task.includes(s.task)) ?? null;

/**
 * Scripted play of context-engineering (a test double, labelled scripted everywhere). It reads the
 * conversation as an agent would and acts by its cell's preset: the careful one passes every
 * scenario, the skimming one makes each scenario's typical mistake.
 */
export const contextEngineeringPlayer: Player = (request) => {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  if (system.startsWith(QUERY_TAG)) return playQuery(request);
  if (!system.startsWith(AGENT_TAG)) return null;
  const preset = system.slice(AGENT_TAG.length, system.indexOf(']'));
  if (!(PRESETS as readonly string[]).includes(preset)) return null;
  const scenario = findScenario(request.messages[1] ? messageText(request.messages[1]) : '');
  if (!scenario) return null;
  const policy: Policy = { careful: preset === 'verify-v1' };
  const t = timeline(request);
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

function timeline(request: ChatRequest): Timeline {
  const asked = new Map<string, { name: string; args: Record<string, unknown> }>();
  const t: Timeline = { steps: [], notices: [] };
  for (const m of request.messages.slice(2)) {
    for (const c of m.tool_calls ?? []) asked.set(c.id, { name: c.function.name, args: parse(c.function.arguments) });
    if (m.role === 'tool' && m.tool_call_id && asked.has(m.tool_call_id)) t.steps.push({ ...asked.get(m.tool_call_id)!, result: messageText(m) });
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

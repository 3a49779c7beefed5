// The scripted lead of context-snapshot: it writes its handoff from its own request (the policy in
// the system prompt, the parent-context snapshot, the current task), never from the task files.
import type { ChatRequest, PlayerReply } from 'evalog';
import { messageText } from 'evalog';
import { MAX_HANDOFF_WORDS } from './prompts.js';

/**
 * How many words of the conversation the scripted isolated lead hands on. It copies whole turns,
 * oldest first, and stops before the first turn that would go past this budget; it does not pass
 * on the summary of earlier context. So a correction made late in a long conversation, or a rule
 * kept only in the summary, does not reach an isolated worker.
 */
export const LEAD_CONVERSATION_WORDS = 250;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The turns and summary of a parent-context snapshot message, as the lead sees them. */
export function readSnapshot(text: string): { turns: string[]; summary: string | null } {
  const body = text.replace(/^\[parent-context-snapshot\]\nConversation so far:\n\n/, '');
  const [conversation, summary] = body.split('\n\nSummary of earlier context:\n');
  const turns = (conversation ?? '').split(/\n\n(?=\[(?:user|assistant|tool)\] )/).filter((t) => t.trim() !== '');
  return { turns, summary: summary ?? null };
}

/** The isolated handoff: the brief, then whole turns oldest first within the budget, then the instructions. */
export function isolatedHandoff(brief: string, snapshot: string, budget = LEAD_CONVERSATION_WORDS): string {
  const kept: string[] = [];
  let used = 0;
  for (const turn of readSnapshot(snapshot).turns) {
    if (used + words(turn) > budget) break;
    kept.push(turn);
    used += words(turn);
  }
  const parts = [
    brief,
    '',
    'From our conversation (oldest first):',
    '',
    kept.join('\n\n'),
    '',
    'Save the artifact, run the public checks on the final revision, and report.',
  ];
  const text = parts.join('\n');
  // The policy's own cap; the budget above keeps well under it, but a long brief must not break it.
  const all = text.split(/\s+/);
  return all.length <= MAX_HANDOFF_WORDS ? text : `${all.slice(0, MAX_HANDOFF_WORDS - 1).join(' ')} …`;
}

/** The lead's one reply: a `task` call in the context mode its policy names, with the brief or a handoff. */
export function playLead(request: ChatRequest, system: string, budget = LEAD_CONVERSATION_WORDS): PlayerReply | null {
  const current = messageText(request.messages.at(-1)!);
  const brief = /^Current task:\n([\s\S]+)$/.exec(current)?.[1]?.trim();
  if (!brief) return null;
  const mode = system.includes('Context mode: snapshot') ? 'snapshot' : 'isolated';
  const snapshot =
    request.messages
      .slice(1, -1)
      .map(messageText)
      .find((t) => t.startsWith('[parent-context-snapshot]')) ?? '';
  const prompt = mode === 'snapshot' ? brief : isolatedHandoff(brief, snapshot, budget);
  return { content: null, toolCalls: [{ name: 'task', arguments: JSON.stringify({ subagent_type: 'general-purpose', context_mode: mode, prompt }) }] };
}

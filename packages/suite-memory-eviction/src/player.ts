import type { Player } from 'evalog';
import { messageText } from 'evalog';

/**
 * Scripted answerer for memory-eviction QA: it answers only from the stored memory it is given,
 * by what the facts say, never by their ids (a `gold_` id names the answer key's support fact).
 * A user's correction answers NO; a fact that states a value ("… is recorded as X", "The answer
 * is X", a quoted value) answers with it, the last such fact winning; with none, INSUFFICIENT.
 * It knows the request by the layout of its user message (a STORED MEMORY block, then the
 * QUESTION), which evalog's prompt and an upstream-layout protocol's share.
 */
export const memoryEvictionPlayer: Player = (request) => {
  if (request.messages.length !== 2 || request.messages[0]?.role !== 'system') return null;
  const user = messageText(request.messages.at(-1)!);
  if (!user.includes('STORED MEMORY:\n') || !user.includes('\n\nQUESTION:')) return null;
  const facts = storedFacts(user).map((f) => f.content.trim());
  if (facts.some((c) => /^\W*(?:user\s+)?correction\b/i.test(c))) return { content: 'NO' };
  const answers = facts.flatMap((c) => {
    const stated = [...c.matchAll(/(?:is recorded as|The answer is) (.+?)\.?$/gm)].at(-1)?.[1];
    const quoted = [...c.matchAll(/"([^"\n]+)"/g)].at(-1)?.[1];
    const value = stated?.replace(/^"(.*)"$/, '$1') ?? quoted;
    return value === undefined ? [] : [value];
  });
  return { content: answers.at(-1) ?? 'INSUFFICIENT' };
};

// The memory section is `[id]\ncontent` blocks joined by blank lines; contents may hold blank lines too.
function storedFacts(user: string): { id: string; content: string }[] {
  const start = user.indexOf('STORED MEMORY:\n');
  const end = user.lastIndexOf('\n\nQUESTION:');
  if (start < 0 || end < start) return [];
  const memory = user.slice(start + 'STORED MEMORY:\n'.length, end);
  return memory.split(/\n\n(?=\[[^\]\n]+\]\n)/).flatMap((block) => {
    const m = /^\[([^\]\n]+)\]\n([\s\S]*)$/.exec(block);
    return m ? [{ id: m[1]!, content: m[2]! }] : [];
  });
}

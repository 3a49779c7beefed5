import { messageText, type Player } from '../../providers/scripted/index.js';

const SYSTEM_MARK = 'Answer the question from the stored memory only';

/**
 * Scripted answerer for memory-eviction QA: it answers only from the stored memory it is given.
 * With the support fact (`gold_…`) kept, a correction guard answers NO and an evidence fact
 * answers with the value it states; without it, INSUFFICIENT.
 */
export const memoryEvictionPlayer: Player = (request) => {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  if (!system.includes(SYSTEM_MARK)) return null;
  const user = messageText(request.messages.at(-1)!);
  const gold = storedFacts(user).find((f) => f.id.startsWith('gold_'));
  if (!gold) return { content: 'INSUFFICIENT' };
  const content = gold.content.trim();
  if (/^Correction from the user/i.test(content)) return { content: 'NO' };
  // An answer stated in the evidence ("… is recorded as X."), else its last quoted value, else the first answer turn.
  const stated = [...content.matchAll(/is recorded as (.+?)\.?$/gm)].at(-1)?.[1];
  if (stated) return { content: stated.replace(/^"(.*)"$/, '$1') };
  const quoted = [...content.matchAll(/"([^"\n]+)"/g)].at(-1)?.[1];
  if (quoted) return { content: quoted };
  const answer = content.split('\n').find((l) => /^[A-Z]+: /.test(l));
  return { content: (answer ?? content).replace(/^[A-Z]+: /, '') };
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

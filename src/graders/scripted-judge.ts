// The scripted model's judge: it recognises a judge request by its format name and returns a verdict
// computed only from what the request shows, so model-graded checks run offline and deterministically.
import type { Player } from '../providers/scripted/index.js';
import { JUDGE_FORMAT } from './model-graded.js';

/** A rubric containing this phrase makes the scripted judge answer in prose: a malformed verdict, on purpose (tests). */
export const SCRIPTED_MALFORMED = 'SCRIPTED-JUDGE: MALFORMED';

/**
 * Judges like a lenient reader: passes when the output contains the expected value (case and
 * spacing ignored), or, when no expected value is given, when the output is not empty.
 */
export const scriptedJudgePlayer: Player = (request) => {
  const [system, user] = request.messages;
  if (request.messages.length !== 2 || system?.role !== 'system' || user?.role !== 'user') return null;
  if (typeof system.content !== 'string' || !system.content.includes(`(${JUDGE_FORMAT})`) || typeof user.content !== 'string') return null;
  const text = user.content;
  const rubric = between(text, '<rubric>\n', '\n</rubric>');
  if (rubric?.includes(SCRIPTED_MALFORMED)) return { content: 'I think this one mostly passes.' };
  const output = lastBlock(text, '<output>\n', '\n</output>') ?? '';
  const expected = between(text, '<expected>\n', '\n</expected>');
  const fold = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
  const pass = expected === null ? fold(output) !== '' : fold(output).includes(fold(expected));
  const reason =
    expected === null
      ? pass
        ? 'the output is not empty'
        : 'the output is empty'
      : pass
        ? 'the output contains the expected value'
        : 'the output does not contain the expected value';
  return { content: JSON.stringify({ verdict: pass ? 'pass' : 'fail', reason: `scripted judge: ${reason}` }) };
};

function between(text: string, open: string, close: string): string | null {
  const a = text.indexOf(open);
  if (a < 0) return null;
  const b = text.indexOf(close, a + open.length);
  return b < 0 ? null : text.slice(a + open.length, b);
}

// The output is the last block and may itself contain tag-like text: take it from its opening tag to the final close.
function lastBlock(text: string, open: string, close: string): string | null {
  const a = text.indexOf(open);
  const b = text.lastIndexOf(close);
  return a < 0 || b < a + open.length ? null : text.slice(a + open.length, b);
}

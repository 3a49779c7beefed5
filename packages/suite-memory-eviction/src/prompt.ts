/**
 * Answer prompt rendering (spec A6). The template starts with `SYSTEM:\n` and contains one
 * `\n\nUSER:\n`; the two parts become the system and user messages.
 */

import { cpCompare, stripChars } from './text.js';
import type { Fact } from './types.js';

export const SYSTEM_MARKER = 'SYSTEM:\n';
export const USER_MARKER = '\n\nUSER:\n';
export const PLACEHOLDERS = ['{{CURRENT_DATE_SECTION}}', '{{STORED_MEMORY}}', '{{QUESTION}}'] as const;

export interface ChatMessagePair {
  role: 'system' | 'user';
  content: string;
}

export interface RenderInput {
  question: string;
  /** The case's question date; null (or empty) renders no date section. */
  questionDate: string | null;
  /** The kept facts (any order: they are rendered sorted by id). */
  facts: readonly Pick<Fact, 'id' | 'content'>[];
}

/** Why a template is unusable, or null when it is fine. The placeholders belong in the user part, as upstream's loader requires. */
export function checkPromptTemplate(template: string): string | null {
  if (!template.startsWith(SYSTEM_MARKER)) return 'must start with "SYSTEM:\\n"';
  const cut = template.indexOf(USER_MARKER, SYSTEM_MARKER.length);
  if (cut < 0) return 'must contain "\\n\\nUSER:\\n"';
  const user = template.slice(cut + USER_MARKER.length);
  for (const p of PLACEHOLDERS) if (!user.includes(p)) return `must contain the placeholder ${p} in its USER part`;
  return null;
}

/** The STORED MEMORY block: facts sorted by id, each `[id]\n{content}`, joined by a blank line. */
export function renderStoredMemory(facts: readonly Pick<Fact, 'id' | 'content'>[]): string {
  if (facts.length === 0) throw new Error('cannot render a prompt with zero facts');
  const ids = new Set<string>();
  for (const f of facts) {
    if (ids.has(f.id)) throw new Error(`duplicate fact id ${JSON.stringify(f.id)} in the rendered memory`);
    ids.add(f.id);
  }
  return [...facts]
    .sort((a, b) => cpCompare(a.id, b.id))
    .map((f) => `[${f.id}]\n${f.content}`)
    .join('\n\n');
}

/**
 * Renders [system, user] messages as the protocol does, so request fingerprints are its own: each
 * template part is stripped of surrounding `\n`; the system part is sent as written; in the user
 * part the date section, then the memory, then the question replace every occurrence of their
 * placeholder, in that order (so a placeholder inside the date or memory text is replaced by the
 * later steps, as in upstream's chained `str.replace`).
 */
export function renderMessages(promptText: string, input: RenderInput): [ChatMessagePair, ChatMessagePair] {
  const problem = checkPromptTemplate(promptText);
  if (problem !== null) throw new Error(`answer prompt ${problem}`);
  const body = promptText.slice(SYSTEM_MARKER.length);
  const cut = body.indexOf(USER_MARKER);
  const memory = renderStoredMemory(input.facts);
  // A function replacement: the inserted text is taken literally (no `$&` patterns).
  const user = stripChars(body.slice(cut + USER_MARKER.length), '\n')
    .replaceAll('{{CURRENT_DATE_SECTION}}', () => (input.questionDate ? `CURRENT DATE: ${input.questionDate}\n` : ''))
    .replaceAll('{{STORED_MEMORY}}', () => memory)
    .replaceAll('{{QUESTION}}', () => input.question);
  return [
    { role: 'system', content: stripChars(body.slice(0, cut), '\n') },
    { role: 'user', content: user },
  ];
}

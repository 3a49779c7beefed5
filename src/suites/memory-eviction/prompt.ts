/**
 * Answer prompt rendering (spec A6). The template starts with `SYSTEM:\n` and contains one
 * `\n\nUSER:\n`; the two parts become the system and user messages.
 */
import type { Fact } from './types.js';
import { cpCompare, stripChars } from './text.js';

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

/** Why a template is unusable, or null when it is fine. */
export function checkPromptTemplate(template: string): string | null {
  if (!template.startsWith(SYSTEM_MARKER)) return 'must start with "SYSTEM:\\n"';
  if (!template.includes(USER_MARKER, SYSTEM_MARKER.length)) return 'must contain "\\n\\nUSER:\\n"';
  for (const p of PLACEHOLDERS) if (!template.includes(p)) return `must contain the placeholder ${p}`;
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
 * Renders [system, user] messages. Each template part is stripped of surrounding `\n`, then the
 * placeholders are substituted in one pass (substituted text is never re-scanned).
 */
export function renderMessages(promptText: string, input: RenderInput): [ChatMessagePair, ChatMessagePair] {
  const problem = checkPromptTemplate(promptText);
  if (problem !== null) throw new Error(`answer prompt ${problem}`);
  const body = promptText.slice(SYSTEM_MARKER.length);
  const cut = body.indexOf(USER_MARKER);
  const values: Record<string, string> = {
    '{{CURRENT_DATE_SECTION}}': input.questionDate ? `CURRENT DATE: ${input.questionDate}\n` : '',
    '{{STORED_MEMORY}}': renderStoredMemory(input.facts),
    '{{QUESTION}}': input.question,
  };
  const fill = (part: string) => stripChars(part, '\n').replace(/\{\{(?:CURRENT_DATE_SECTION|STORED_MEMORY|QUESTION)\}\}/g, (m) => values[m]!);
  return [
    { role: 'system', content: fill(body.slice(0, cut)) },
    { role: 'user', content: fill(body.slice(cut + USER_MARKER.length)) },
  ];
}

// The text a row shows of a job (its input, output, expected value, the reason of its verdict):
// cut to a configured length so rows.jsonl stays small, with the sha256 of the whole beside the
// input and output so a reader can tell two long texts apart and check one against the log.
import { canonicalJson, sha256 } from '../core/canonical.js';

/** Characters of each text a row keeps when the run's config sets no `report.maxTextChars`. */
export const DEFAULT_MAX_TEXT_CHARS = 2000;

/** A text as a row keeps it: the cut text and the sha256 (hex, of the UTF-8 bytes) of the whole. */
export interface ClippedText {
  text: string;
  sha256: string;
}

/**
 * The first `max` characters (code points, so no surrogate pair is split) of `text`, followed by
 * ` … [N more characters]` when it was longer: the cut is visible in the row and in `evalog show`.
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text; // fewer UTF-16 units than `max` is fewer code points too
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === max) break;
    units += ch.length;
    points += 1;
  }
  if (units === text.length) return text;
  const rest = countPoints(text, units);
  return `${text.slice(0, units)} … [${rest} more character${rest === 1 ? '' : 's'}]`;
}

/** The cut text with the hash of the whole. */
export function clipHashed(text: string, max: number): ClippedText {
  return { text: clip(text, max), sha256: sha256(text) };
}

/** A value shown as text: a string as it is, anything else as canonical JSON. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : (canonicalJson(value) ?? String(value));
}

/** `report.maxTextChars` of a run's recorded config, else the default. */
export function maxTextCharsOf(config: Readonly<Record<string, unknown>>): number {
  const report = config.report;
  const max = report !== null && typeof report === 'object' ? (report as { maxTextChars?: unknown }).maxTextChars : undefined;
  return typeof max === 'number' && Number.isInteger(max) && max >= 0 ? max : DEFAULT_MAX_TEXT_CHARS;
}

/** A chat message as a request's blob holds it (canonical JSON of the message sent). */
interface StoredMessage {
  role?: unknown;
  content?: unknown;
}

/**
 * The prompt a job started from, as a reader wants it: the one non-system message of its first
 * request as it is; several (a chat history) each as `[role] content`, separated by blank lines;
 * the system message alone when there is nothing else.
 */
export function renderPrompt(messages: readonly StoredMessage[]): string {
  const shown = messages.filter((m) => m.role !== 'system');
  const list = shown.length > 0 ? shown : messages;
  const content = (m: StoredMessage) => (m.content === null || m.content === undefined ? '' : textOf(m.content));
  if (list.length === 1) return content(list[0]!);
  return list.map((m) => `[${textOf(m.role ?? 'message')}] ${content(m)}`).join('\n\n');
}

function countPoints(text: string, from: number): number {
  let n = 0;
  for (const _ of text.slice(from)) n += 1;
  return n;
}

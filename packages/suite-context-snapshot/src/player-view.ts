// What the scripted context-snapshot worker can see, and the reading helpers its skills use. Only
// the request's own messages go in: the system prompt, the snapshot (snapshot arm), the parent's
// prompt and the tool results. Nothing here touches the task manifests.
import type { ChatRequest } from 'evalog';
import { messageText } from 'evalog';
import { readSnapshot } from './player-lead.js';

/**
 * How many words of a parent-context snapshot the scripted worker takes in: the summary of earlier
 * context, then whole turns from the newest back, until this budget. A long conversation's early
 * facts (a first draft's values nobody restated) are lost to the snapshot worker, as the isolated
 * lead's budget loses late corrections; the parent's own prompt is always read whole.
 */
export const WORKER_SNAPSHOT_WORDS = 300;

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The part of a snapshot message the worker attends to, in the original order. */
export function attendedSnapshot(text: string, budget = WORKER_SNAPSHOT_WORDS): string {
  const { turns, summary } = readSnapshot(text);
  let used = summary === null ? 0 : wordCount(summary);
  const kept: string[] = [];
  for (const turn of [...turns].reverse()) {
    if (used + wordCount(turn) > budget) break;
    kept.unshift(turn);
    used += wordCount(turn);
  }
  return [...kept, ...(summary === null ? [] : [`Summary of earlier context:\n${summary}`])].join('\n\n');
}

/** One tool call of the worker so far, with its result (null while unanswered). */
export interface SeenCall {
  name: string;
  args: Record<string, unknown>;
  result: string | null;
}

/** The worker's view of its request. */
export interface WorkerView {
  /** System prompt. */
  system: string;
  /** The conversation the worker was given, in order: the snapshot (if any) and the parent's prompt. */
  conversation: string;
  /** Bundled documents its conversation names (see namedDocuments); the system prompt names none. */
  documents: string[];
  /** Documents read so far, by name, as `read_reference` returned them. */
  read: Map<string, string>;
  /** Its tool calls so far, in order. */
  calls: SeenCall[];
}

/** Builds the worker's view from its request alone. */
export function workerView(request: ChatRequest): WorkerView {
  const system = request.messages[0] ? messageText(request.messages[0]) : '';
  const conversation = request.messages
    .slice(1)
    .filter((m) => m.role === 'user')
    .map(messageText)
    .map((t) => (t.startsWith('[parent-context-snapshot]') ? attendedSnapshot(t) : t))
    .join('\n\n');
  const documents = namedDocuments(conversation);
  const results = new Map(request.messages.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => [m.tool_call_id!, messageText(m)]));
  const calls = request.messages
    .flatMap((m) => m.tool_calls ?? [])
    .map((c): SeenCall => ({ name: c.function.name, args: parseArgs(c.function.arguments), result: results.get(c.id) ?? null }));
  const read = new Map<string, string>();
  for (const c of calls) if (c.name === 'read_reference' && typeof c.args.document === 'string' && c.result !== null) read.set(c.args.document, c.result);
  return { system, conversation, documents, read, calls };
}

// A document's name as tasks write it: lower-case words joined by hyphens (`contact-policy`,
// `ci-run-418`); a name cut short by a placeholder (`ci-run-<build>`) is none.
const DOCUMENT_NAME = /\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b(?![-<])/g;

/**
 * The documents a text names: hyphenated names in a sentence that speaks of a document, a
 * reference or something bundled, in the order they first appear. This is how the worker learns
 * what it may read: from what it was told, never from a list it was not given.
 */
export function namedDocuments(text: string): string[] {
  const names: string[] = [];
  for (const sentence of text.split(/(?<=[.!?:])\s+|\n+/)) {
    if (!/\b(?:documents?|references?|bundled)\b/i.test(sentence)) continue;
    for (const m of sentence.matchAll(DOCUMENT_NAME)) if (!names.includes(m[0])) names.push(m[0]);
  }
  return names;
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The last match of any of the patterns in the text (by position: later statements override earlier ones). */
export function lastMatch(text: string, ...patterns: RegExp[]): RegExpExecArray | null {
  let best: RegExpExecArray | null = null;
  for (const p of patterns) {
    const re = new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`);
    for (const m of text.matchAll(re)) if (!best || m.index >= best.index) best = m as RegExpExecArray;
  }
  return best;
}

// A value written after a key name: a quoted string, a bracketed list, a version, a date, a number or a boolean.
const LITERAL = String.raw`("[^"\n]*"|\[[^\]\n]*\]|\d+\.\d+\.\d+|\d{4}-\d{2}-\d{2}|-?\d+(?:\.\d+)?|true|false)`;
const FILLER = String.raw`\s*(?::|=|is|becomes|to|stays at)?\s*`;

/**
 * Every value the text states for a key, in order, as in `limit 300`, `key_by "api_key"`,
 * `exempt_paths ["/health"]` or `burst becomes 30` (any of the names counts).
 */
export function statedValues(text: string, ...names: string[]): unknown[] {
  const found: { at: number; value: unknown }[] = [];
  for (const n of names) {
    const re = new RegExp(String.raw`\b${n.replace(/[-_ ]/g, '[-_ ]')}${FILLER}${LITERAL}`, 'gi');
    for (const m of text.matchAll(re)) found.push({ at: m.index, value: literal(m[1]!) });
  }
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.value)
    .filter((v) => v !== undefined);
}

/** The last value the text states for a key that `accept` takes (later statements override earlier ones). */
export function statedValue(text: string, names: string[], accept: (v: unknown) => boolean = () => true): unknown {
  return statedValues(text, ...names)
    .filter(accept)
    .at(-1);
}

function literal(raw: string): unknown {
  if (/^\d+\.\d+\.\d+$|^\d{4}-\d{2}-\d{2}$/.test(raw)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** The keys a JSON brief asks for (`exactly the keys a, b and c` / `exactly these keys: a (…), b`), in its order. */
export function briefKeys(text: string): string[] {
  const m = /exactly (?:the|these) keys:? ([^.]*?)(?:,? (?:reflecting|honouring|as one|All values)|\.)/.exec(text);
  if (!m) return [];
  return m[1]!
    .replace(/\([^)]*\)/g, '')
    .split(/,\s*|\s+and\s+/)
    .map((k) => k.trim())
    .filter((k) => /^[a-z_][a-z0-9_]*$/.test(k));
}

/** Parsed `run_public_checks` output: whether it passed and its detail lines. */
export interface PublicReport {
  passed: boolean;
  details: string[];
}

/** Reads a `run_public_checks` result; an unreadable one counts as failed with no details. */
export function parseReport(result: string): PublicReport {
  try {
    const v = JSON.parse(result) as { public_checks_passed?: unknown; details?: unknown };
    return { passed: v.public_checks_passed === true, details: Array.isArray(v.details) ? v.details.map(String) : [] };
  } catch {
    return { passed: false, details: [] };
  }
}

/** The public-check report of the last check call, if the last call was one. */
export function lastPublicReport(view: WorkerView): PublicReport | null {
  const last = view.calls.at(-1);
  return last?.name === 'run_public_checks' && last.result !== null ? parseReport(last.result) : null;
}

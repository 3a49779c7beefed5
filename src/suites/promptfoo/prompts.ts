// promptfoo's prompts as evalog's prompt arms: each prompt is one arm's template. A prompt is a
// template string, a `file://` text file (several prompts in one file are split at `---` lines, as
// promptfoo splits them), or `{ raw | id, label }`. The arm is named by its label, else by its
// file's name, else `prompt<N>` by position. Chat-format (JSON message lists), code and CSV prompt
// files are refused: evalog's templates are one user message.
import { basename, extname } from 'node:path';
import { at, isRecord, onlyKeys, refuse, shown, type Where } from './errors.js';
import { FILE_PREFIX, type Sources } from './sources.js';
import { templateNames } from './template.js';

/** One prompt: its arm name, its template, where it was written, and the variables it uses. */
export interface CompiledPrompt {
  arm: string;
  template: string;
  where: Where;
  names: string[];
}

const ARM = /^[A-Za-z0-9_-]{1,64}$/;
const TEXT_FILES = ['.txt', '.md', '.j2', '.prompt', ''];

/** promptfoo's default when a config gives no prompts: the test's `prompt` var is the prompt. */
export const DEFAULT_PROMPT = '{{prompt}}';

/** Reads `prompts` into arms, in the order written. */
export function compilePrompts(where: Where, value: unknown, sources: Sources): CompiledPrompt[] {
  if (value === undefined || value === null) return [{ arm: 'prompt1', template: DEFAULT_PROMPT, where, names: ['prompt'] }];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0) throw refuse(where, `must be a prompt or a non-empty list of prompts, got ${shown(value)}`);
  const out: CompiledPrompt[] = [];
  for (const [i, item] of list.entries()) {
    const w = typeof value === 'string' ? where : at(where, i);
    let text: unknown = item;
    let label: string | null = null;
    let textAt = w;
    if (isRecord(item)) {
      onlyKeys(w, item, ['raw', 'id', 'label'], 'prompt');
      if ((item.raw === undefined) === (item.id === undefined)) throw refuse(w, 'give the prompt as raw (its text) or id (a file:// path), one of them');
      textAt = at(w, item.raw === undefined ? 'id' : 'raw');
      text = item.raw ?? item.id;
      if (item.label !== undefined) {
        if (typeof item.label !== 'string' || item.label.trim() === '') throw refuse(at(w, 'label'), `must be a non-empty string, got ${shown(item.label)}`);
        label = item.label.trim();
      }
    }
    if (typeof text !== 'string' || text.trim() === '') throw refuse(textAt, `must be a non-empty string, got ${shown(text)}`);
    for (const p of promptTexts(textAt, text, sources, position(i))) {
      const arm = armName(label, p.name, p.count, i, p.index);
      out.push({ arm, template: p.template, where: textAt, names: templateNames(textAt, p.template) });
    }
  }
  const seen = new Map<string, Where>();
  for (const p of out) {
    if (!ARM.test(p.arm)) throw refuse(p.where, `arm name ${JSON.stringify(p.arm)} must be 1-64 letters, digits, "_" or "-"`);
    const first = seen.get(p.arm);
    if (first) throw refuse(p.where, `two prompts are named ${JSON.stringify(p.arm)} (the other at ${first.path}); give each a distinct label`);
    seen.set(p.arm, p.where);
  }
  return out;
}

function position(i: number): string {
  return `prompt${i + 1}`;
}

interface PromptText {
  template: string;
  /** A name for the arm when the prompt has no label: the file's stem, else `prompt<N>`. */
  name: string;
  index: number;
  count: number;
}

function promptTexts(where: Where, text: string, sources: Sources, fallback: string): PromptText[] {
  if (!text.startsWith(FILE_PREFIX)) {
    refuseChat(where, text);
    return [{ template: text, name: fallback, index: 0, count: 1 }];
  }
  const { absolute } = sources.resolve(where, text);
  const ext = extname(absolute).toLowerCase();
  if (!TEXT_FILES.includes(ext))
    throw refuse(where, `${JSON.stringify(text)}: ${ext} prompt files are not supported (a text file: ${TEXT_FILES.filter((e) => e !== '').join(', ')})`);
  const { text: body } = sources.text(where, text);
  // promptfoo separates prompts of one file by a line of three dashes.
  const parts = body
    .split(/\r?\n---\r?\n/)
    .map((p) => p.replace(/\s+$/, ''))
    .filter((p) => p.trim() !== '');
  if (parts.length === 0) throw refuse(where, `${JSON.stringify(text)} holds no prompt text`);
  const stem = basename(absolute, extname(absolute)).replace(/[^A-Za-z0-9_-]+/g, '-');
  return parts.map((template, index) => {
    refuseChat(where, template);
    return { template, name: stem, index, count: parts.length };
  });
}

function armName(label: string | null, name: string, count: number, i: number, index: number): string {
  const base = label === null ? name : label.replace(/[^A-Za-z0-9_-]+/g, '-');
  if (base === '') return position(i);
  return count > 1 ? `${base}-${index + 1}` : base;
}

// A prompt that is a JSON list of messages is promptfoo's chat format.
function refuseChat(where: Where, text: string): void {
  const t = text.trim();
  if (!t.startsWith('[')) return;
  try {
    const v: unknown = JSON.parse(t);
    if (Array.isArray(v) && v.some((m) => isRecord(m) && 'role' in m))
      throw refuse(where, 'chat-format prompts (a JSON list of messages) are not supported; give the user message as text');
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
}

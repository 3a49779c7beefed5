// The promptfoo reader's one error: a config (or a file it references) that evalog cannot run as
// written. Always a UserError (exit 2, one line): it names the file and the place in it, so a key or
// an assert type evalog does not support is refused by name and location, never silently dropped.
import { UserError } from '../../core/errors.js';

/** A promptfoo config, or a file it references, that cannot be run: `FILE: PATH: detail`. */
export class PromptfooConfigError extends UserError {
  override name = 'PromptfooConfigError';
  constructor(
    readonly file: string,
    readonly path: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(path === '' ? `${file}: ${detail}` : `${file}: ${path}: ${detail}`, options);
  }
}

/** Where a value sits, for messages: the file as shown and its path inside (`tests[2].assert[0]`). */
export interface Where {
  file: string;
  path: string;
}

/** The error for `where`, with `detail`. */
export function refuse(where: Where, detail: string, options?: { cause?: unknown }): PromptfooConfigError {
  return new PromptfooConfigError(where.file, where.path, detail, options);
}

/** `where` one key or index further in. */
export function at(where: Where, key: string | number): Where {
  if (typeof key === 'number') return { file: where.file, path: `${where.path}[${key}]` };
  return { file: where.file, path: where.path === '' ? key : `${where.path}.${key}` };
}

/** Refuses keys of `value` outside `known`, naming the first (sorted) and what is supported. */
export function onlyKeys(where: Where, value: Record<string, unknown>, known: readonly string[], what: string): void {
  const extra = Object.keys(value)
    .filter((k) => !known.includes(k))
    .sort();
  if (extra.length > 0) throw refuse(at(where, extra[0]!), `${what} key ${JSON.stringify(extra[0])} is not supported (supported: ${known.join(', ')})`);
}

/** Whether `v` is a plain mapping (what YAML and JSON objects parse to). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A value as a message shows it: JSON, cut to `max` characters. */
export function shown(v: unknown, max = 60): string {
  const text = v === undefined ? 'nothing' : (JSON.stringify(v) ?? String(v));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Evidence rendering (spec A3.3): per session, the turns marked `has_answer`, else the user
 * turns, else nothing; `SESSION {id} AT {date}` then `ROLE: content` lines.
 */
import type { DatasetRow } from './dataset.js';
import { DatasetError } from './errors.js';
import { PyFloat, pyFloatRepr } from './python-json.js';

/** Python `str(v)` for the scalar values a dataset field can hold. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
  if (value instanceof PyFloat) return pyFloatRepr(value.value);
  throw new TypeError(`cannot render ${Array.isArray(value) ? 'a list' : 'an object'} as text`);
}

/** Python truthiness of a JSON value. */
function truthy(value: unknown): boolean {
  if (value instanceof PyFloat) return value.value !== 0; // bool(nan) is True in Python
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

interface Turn {
  role: unknown;
  content: string;
  has_answer?: unknown;
}

/**
 * The rendered evidence of a row. Sessions join with a blank line, turns with `\n`. Throws
 * `DatasetError` (naming `file` and the row) when the haystack lists are missing or unequal.
 */
export function renderEvidence(row: DatasetRow, file = '(dataset)'): string {
  const ids = row.haystack_session_ids;
  const dates = row.haystack_dates;
  const sessions = row.haystack_sessions;
  if (!Array.isArray(ids) || !Array.isArray(dates) || !Array.isArray(sessions))
    throw new DatasetError(file, 'haystack_session_ids, haystack_dates and haystack_sessions must be lists', row.question_id);
  if (ids.length !== dates.length || ids.length !== sessions.length)
    throw new DatasetError(file, `haystack lists differ in length (${ids.length}, ${dates.length}, ${sessions.length})`, row.question_id);
  const blocks: string[] = [];
  try {
    sessions.forEach((session: unknown, s) => {
      if (!Array.isArray(session)) throw new TypeError(`session ${s} is not a list of turns`);
      const turns = session.filter(
        (t): t is Turn => t !== null && typeof t === 'object' && !Array.isArray(t) && typeof (t as Record<string, unknown>).content === 'string',
      );
      let selected = turns.filter((t) => t.has_answer === true);
      if (selected.length === 0) selected = turns.filter((t) => pyStr(truthy(t.role) ? t.role : '').toLowerCase() === 'user');
      if (selected.length === 0) return;
      const lines = [`SESSION ${pyStr(ids[s])} AT ${pyStr(dates[s])}`];
      for (const t of selected) lines.push(`${pyStr(truthy(t.role) ? t.role : '').toUpperCase() || 'UNKNOWN'}: ${t.content}`);
      blocks.push(lines.join('\n'));
    });
  } catch (err) {
    if (err instanceof DatasetError) throw err;
    throw new DatasetError(file, `bad haystack: ${(err as Error).message}`, row.question_id);
  }
  return blocks.join('\n\n');
}

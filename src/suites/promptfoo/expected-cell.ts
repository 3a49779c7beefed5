// promptfoo's one-cell assert syntax, used by the `__expected` columns of a CSV tests file:
// `contains:Paris`, `not-icontains:error`, `similar(0.9):Hello`, `grade:is polite`, `fn:output.length < 9`,
// and a bare value, which is compared with `equals`. A prefix naming an assert type evalog does not
// run is refused by name; text that names no type at all is a value to compare with, as promptfoo reads it.
import { ASSERT_TYPES, OTHER_PROMPTFOO_TYPES } from './assert-types.js';
import { refuse, type Where } from './errors.js';

// Longest first, so `contains-json` is not read as `contains` followed by text.
const TYPES = [...ASSERT_TYPES, ...OTHER_PROMPTFOO_TYPES].sort((a, b) => b.length - a.length);
const CELL = new RegExp(`^(not-)?(${TYPES.map((t) => t.replace(/[-:]/g, (c) => `\\${c}`)).join('|')})(?:\\((\\d+(?:\\.\\d+)?)\\))?(?::([\\s\\S]*))?$`);

/** The assert entry (as YAML would write it) that one `__expected` cell means. */
export function assertOfCell(where: Where, cell: string): Record<string, unknown> {
  for (const [prefix, type] of [
    ['javascript:', 'javascript'],
    ['fn:', 'javascript'],
    ['eval:', 'javascript'],
    ['grade:', 'llm-rubric'],
    ['llm-rubric:', 'llm-rubric'],
  ] as const) {
    if (cell.startsWith(prefix)) return { type, value: cell.slice(prefix.length).trim() };
  }
  if (cell.startsWith('python:')) throw refuse(where, `"python" is not supported (supported: ${ASSERT_TYPES.join(', ')}, each also as not-<type>)`);
  if (cell.startsWith('file://')) throw refuse(where, 'asserts from a file:// script are not supported; write the assert in the cell');
  const m = CELL.exec(cell);
  if (!m) return { type: 'equals', value: cell };
  const [, not, type, threshold, value] = m;
  const entry: Record<string, unknown> = { type: `${not ?? ''}${type}` };
  const v = value?.trim();
  if (v !== undefined && v !== '') entry.value = v;
  if (threshold !== undefined) entry.threshold = Number.parseFloat(threshold);
  // promptfoo's CSV reading: similar without a threshold wants 0.8.
  else if (type === 'similar') entry.threshold = 0.8;
  return entry;
}

// The case file's other formats: a JSON array of case objects, or CSV with a header row. Each is
// turned into the objects a JSONL line holds, with the line each starts on, so every format is
// checked by the same rules and its errors name the same file and line.
import { CsvSyntaxError, parseCsv } from '../../core/csv.js';
import { arrayItemLines, parseJsonText } from '../../core/text-input.js';
import { CaseLineError, DatasetSuiteError } from './errors.js';

/** How a case file is read, by its name: `.json` a JSON array, `.csv` CSV, anything else JSON Lines. */
export type CaseFormat = 'jsonl' | 'json' | 'csv';

/** The format a case file's name says. */
export function caseFormatOf(path: string): CaseFormat {
  if (/\.json$/i.test(path)) return 'json';
  if (/\.csv$/i.test(path)) return 'csv';
  return 'jsonl';
}

/** One case object of a file and the 1-based line it starts on. */
export interface CaseItem {
  line: number;
  value: unknown;
}

/** The items of a JSON-array case file (BOM already stripped). */
export function jsonArrayItems(file: string, text: string): CaseItem[] {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new CaseLineError(file, parsed.at.line, `not valid JSON (column ${parsed.at.column}): ${parsed.at.detail}`);
  if (!Array.isArray(parsed.value))
    throw new DatasetSuiteError(`case file ${file} must hold a JSON array of case objects (a .json file; JSON Lines are read from any other name)`);
  const lines = arrayItemLines(text);
  return parsed.value.map((value, i) => ({ line: lines[i] ?? 1, value }));
}

/** Columns read as JSON: `messages` always, and any `NAME:json` (its value goes to `NAME`). */
const JSON_SUFFIX = ':json';
/** The case fields of JSONL; an empty cell in one of them is a field not given. */
const FIELDS = new Set(['id', 'input', 'messages', 'expected', 'grader']);

/**
 * The items of a CSV case file (BOM already stripped): the header names the fields; a cell is a
 * string, except in `messages` and `NAME:json` columns, which hold JSON. An empty cell of a case
 * field or of a JSON column is that field left out; an empty variable cell is the empty string.
 */
export function csvItems(file: string, text: string): CaseItem[] {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new CaseLineError(file, err.line, `not valid CSV: ${err.detail}`, { cause: err });
    throw err;
  }
  const [header, ...rows] = records;
  if (!header) return [];
  const columns = header.fields.map((name) => {
    const json = name.endsWith(JSON_SUFFIX) || name === 'messages';
    return { name, key: name.endsWith(JSON_SUFFIX) ? name.slice(0, -JSON_SUFFIX.length) : name, json };
  });
  const seen = new Set<string>();
  for (const c of columns) {
    if (c.key === '') throw new CaseLineError(file, header.line, `header: a column has no name${c.name === '' ? '' : ` (${JSON.stringify(c.name)})`}`);
    if (seen.has(c.key)) throw new CaseLineError(file, header.line, `header: column ${JSON.stringify(c.key)} is given twice`);
    seen.add(c.key);
  }
  if (!seen.has('id'))
    throw new CaseLineError(file, header.line, 'header: no "id" column (the first row names the fields: id, input or messages, expected, grader, variables)');
  return rows.map((row) => {
    if (row.fields.length !== columns.length) throw new CaseLineError(file, row.line, `has ${row.fields.length} fields, the header ${columns.length}`);
    const value: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const cell = row.fields[i]!;
      if (cell === '' && (c.json || FIELDS.has(c.key))) return;
      if (!c.json) {
        value[c.key] = cell;
        return;
      }
      const parsed = parseJsonText(cell);
      if (!parsed.ok) throw new CaseLineError(file, row.line, `column ${c.name}: not valid JSON: ${parsed.at.detail}`);
      value[c.key] = parsed.value;
    });
    return { line: row.line, value };
  });
}

// The short form's data: inline cases, a loader's, or a file beside the suite (JSON Lines, a JSON
// array, CSV with a header row, or a YAML list). A file is read once, whole, and hashed from the
// same bytes it is parsed from, so the hash pinned in the config is the hash of the cases run.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { CsvSyntaxError, parseCsv } from '../../core/csv.js';
import { arrayItemLines, parseJsonText, stripBom } from '../../core/text-input.js';
import { EvalDataChangedError, EvalDataLineError, EvalSpecError } from './errors.js';

/** One case as the suite holds it: an id, the input, the expected value, and where it was written. */
export interface LoadedCase {
  id: string;
  input: unknown;
  expected: unknown;
  /** `FILE line N`, or `data[i]` for inline and loaded cases: how messages name the case. */
  where: string;
}

/** The file formats, by extension. */
export const DATA_EXTENSIONS = ['.jsonl', '.json', '.csv', '.yaml', '.yml'] as const;

const ID = /^[A-Za-z0-9_-]{1,100}$/;
const RESERVED = new Set(['id', 'expected']);

/** The data file's sha256 (hex); EvalSpecError naming the file when it cannot be read. */
export function dataFileSha256(path: string, shown: string): string {
  return createHash('sha256').update(readBytes(path, shown)).digest('hex');
}

/** Reads a data file that must hash to `sha256` (the run's pin): EvalDataChangedError otherwise. */
export function readPinnedData(path: string, shown: string, sha256: string): LoadedCase[] {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new EvalDataChangedError(shown, sha256, null);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== sha256) throw new EvalDataChangedError(shown, sha256, actual);
  return parseData(shown, stripBom(bytes.toString('utf8')));
}

/** Cases given as values (inline, or what a loader returned), checked as a file's are. */
export function casesOfValues(values: unknown, what: string): LoadedCase[] {
  if (!Array.isArray(values)) throw new EvalSpecError(`${what}: must be an array of cases ({ input, expected? }), got ${typeof values}`);
  return unique(
    values.map((v, i) => caseOf(v, i, `${what}[${i}]`, (d) => new EvalSpecError(`${what}[${i}]: ${d}`))),
    (c, first) => new EvalSpecError(`${c.where}: id ${JSON.stringify(c.id)} is used again (first at ${first.where})`),
  );
}

function readBytes(path: string, shown: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new EvalSpecError(`field data: cannot read ${shown} (${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)})`, { cause: err });
  }
}

function parseData(file: string, text: string): LoadedCase[] {
  const items = itemsOf(file, text);
  if (items.length === 0) throw new EvalSpecError(`data file ${file} has no cases`);
  return unique(
    items.map((item, i) => caseOf(item.value, i, `${file} line ${item.line}`, (d) => new EvalDataLineError(file, item.line, d))),
    (c, first) => new EvalSpecError(`${c.where}: id ${JSON.stringify(c.id)} is used again (first at ${first.where})`),
  );
}

interface Item {
  line: number;
  value: unknown;
}

function itemsOf(file: string, text: string): Item[] {
  const lower = file.toLowerCase();
  if (lower.endsWith('.json')) {
    const parsed = parseJsonText(text);
    if (!parsed.ok) throw new EvalDataLineError(file, parsed.at.line, `not valid JSON (column ${parsed.at.column}): ${parsed.at.detail}`);
    if (!Array.isArray(parsed.value)) throw new EvalSpecError(`data file ${file} must hold a JSON array of cases`);
    const lines = arrayItemLines(text);
    return parsed.value.map((value, i) => ({ line: lines[i] ?? 1, value }));
  }
  if (lower.endsWith('.csv')) return csvItems(file, text);
  if (lower.endsWith('.yaml') || lower.endsWith('.yml')) return yamlItems(file, text);
  if (lower.endsWith('.jsonl')) return jsonlItems(file, text);
  throw new EvalSpecError(`field data: ${file} is not a data file (give a ${DATA_EXTENSIONS.join(', ')} file)`);
}

function jsonlItems(file: string, text: string): Item[] {
  const out: Item[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    try {
      out.push({ line: i + 1, value: JSON.parse(line) });
    } catch (err) {
      throw new EvalDataLineError(file, i + 1, `not valid JSON: ${(err as Error).message}`);
    }
  });
  return out;
}

// CSV cells are strings: the header names the fields (id, input, expected, or template variables).
function csvItems(file: string, text: string): Item[] {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw new EvalDataLineError(file, err.line, `not valid CSV: ${err.detail}`);
    throw err;
  }
  const [header, ...rows] = records;
  if (!header) return [];
  const names = header.fields;
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new EvalDataLineError(file, header.line, `header: column ${JSON.stringify(twice)} is given twice`);
  return rows.map((row) => {
    if (row.fields.length !== names.length) throw new EvalDataLineError(file, row.line, `has ${row.fields.length} fields, the header ${names.length}`);
    // An empty id or expected cell is that field left out; an empty variable is the empty string.
    const value: Record<string, string> = {};
    names.forEach((n, i) => {
      const cell = row.fields[i]!;
      if (!(cell === '' && RESERVED.has(n))) value[n] = cell;
    });
    return { line: row.line, value };
  });
}

function yamlItems(file: string, text: string): Item[] {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter });
  const error = doc.errors[0];
  if (error) throw new EvalDataLineError(file, error.linePos?.[0]?.line ?? 1, `not valid YAML: ${error.message.split('\n')[0]}`);
  if (!isSeq(doc.contents)) throw new EvalSpecError(`data file ${file} must hold a YAML list of cases`);
  return doc.contents.items.map((node) => {
    const range = (node as { range?: readonly number[] | null }).range;
    const value = isMap(node) || isSeq(node) ? node.toJSON() : (node as { toJSON?: () => unknown }).toJSON?.();
    return { line: counter.linePos(range?.[0] ?? 0).line, value };
  });
}

/**
 * One case from an object: `id` and `expected` are its own fields; `input` is the input, or, when
 * the object has other fields instead, those fields are the input (a record of template variables).
 */
function caseOf(v: unknown, index: number, where: string, bad: (detail: string) => Error): LoadedCase {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('a case must be an object ({ input, expected? })');
  const o = v as Record<string, unknown>;
  const rawId = typeof o.id === 'number' && Number.isSafeInteger(o.id) && o.id >= 0 ? String(o.id) : o.id;
  if (rawId !== undefined && (typeof rawId !== 'string' || !ID.test(rawId)))
    throw bad(`field id: must be 1-100 letters, digits, "_" or "-", got ${JSON.stringify(o.id)}`);
  const rest = Object.keys(o).filter((k) => !RESERVED.has(k));
  if (rest.length === 0) throw bad('has no input (give "input", or template variables)');
  if (rest.includes('input') && rest.length > 1)
    throw bad(`give "input" or template variables, not both (found ${rest.filter((k) => k !== 'input').join(', ')} beside input)`);
  const input = rest.includes('input') ? o.input : Object.fromEntries(rest.map((k) => [k, o[k]]));
  if (input === undefined || input === null) throw bad('field input: must be a string or a record of template variables');
  return { id: (rawId as string | undefined) ?? `c${index + 1}`, input, expected: o.expected, where };
}

function unique(cases: LoadedCase[], twice: (c: LoadedCase, first: LoadedCase) => Error): LoadedCase[] {
  const seen = new Map<string, LoadedCase>();
  for (const c of cases) {
    const first = seen.get(c.id);
    if (first) throw twice(c, first);
    seen.set(c.id, c);
  }
  return cases;
}

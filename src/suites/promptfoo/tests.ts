// promptfoo's tests, and its defaultTest merged into each as promptfoo merges them (vars: the test's
// over the default's; asserts: the default's first, then the test's; threshold and the grading
// provider: the test's, else the default's). Tests are inline, or `file://` files: CSV (a column per
// var, `__expected…` columns of one-cell asserts, `__description`, `__threshold`), YAML, JSON, or
// JSON Lines lists of test mappings.
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CsvSyntaxError, parseCsv } from '../../core/csv.js';
import type { CompiledAssert, Json } from './assert-types.js';
import { compileAssert, jsonVar, judgeModel } from './asserts.js';
import { at, isRecord, onlyKeys, refuse, shown, type Where } from './errors.js';
import { assertOfCell } from './expected-cell.js';
import { FILE_PREFIX, type Sources } from './sources.js';

const TEST_KEYS = ['description', 'vars', 'assert', 'threshold', 'options'] as const;
const OPTION_KEYS = ['provider'] as const;
const CSV_SPECIAL = ['__description', '__threshold'] as const;
const TEXT_VAR_FILES = ['.txt', '.md'];

/** A test as written: where it is, and its parts before defaultTest is merged in. */
interface RawTest {
  where: Where;
  description: string | null;
  vars: Record<string, unknown>;
  asserts: { where: Where; raw: unknown }[];
  threshold: number | null;
  judge: string | null;
}

/** One test, compiled: its id, vars and asserts (defaultTest merged in). */
export interface CompiledTest {
  id: string;
  where: Where;
  vars: Record<string, Json>;
  asserts: CompiledAssert[];
  threshold: number | null;
}

/** Reads `tests` and `defaultTest` into compiled tests, in the order written. */
export function compileTests(root: Where, tests: unknown, defaultTest: unknown, sources: Sources): CompiledTest[] {
  const defaults = defaultTest === undefined || defaultTest === null ? null : defaultOf(at(root, 'defaultTest'), defaultTest, sources);
  const raw = testsOf(at(root, 'tests'), tests, sources);
  // promptfoo runs each prompt once, with no vars, when a config gives no tests.
  if (raw.length === 0) raw.push({ where: at(root, 'tests'), description: null, vars: {}, asserts: [], threshold: null, judge: null });
  const ids = new Set<string>();
  return raw.map((t, i) => {
    const vars = { ...(defaults?.vars ?? {}), ...t.vars };
    const whose = t.where.file === root.file ? t.where.path : `${t.where.file} ${t.where.path}`;
    const ctx = { vars, whose, judge: t.judge ?? defaults?.judge ?? null, sources };
    const asserts = [...(defaults?.asserts ?? []), ...t.asserts].map((a) => compileAssert(a.where, a.raw, ctx));
    const threshold = t.threshold ?? defaults?.threshold ?? null;
    if (threshold !== null && asserts.length > 0 && asserts.every((a) => a.weight === 0))
      throw refuse(t.where, 'has a threshold but every assert has weight 0, so no weighted score can reach it');
    return { id: caseId(t.description, i, ids), where: t.where, vars: jsonVars(t.where, vars), asserts, threshold };
  });
}

function defaultOf(where: Where, value: unknown, sources: Sources): RawTest {
  if (typeof value === 'string' && value.startsWith(FILE_PREFIX)) {
    const { text, shown: file } = sources.text(where, value);
    const parsed = parsedFile({ file, path: '' }, text, extname(file).toLowerCase());
    return testOf({ file, path: '' }, Array.isArray(parsed) ? undefined : parsed, sources);
  }
  return testOf(where, value, sources);
}

function testsOf(where: Where, value: unknown, sources: Sources): RawTest[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return testsOfFile(where, value, sources);
  if (!Array.isArray(value)) throw refuse(where, `must be a list of tests or a file:// path, got ${shown(value)}`);
  return value.flatMap((item, i) => (typeof item === 'string' ? testsOfFile(at(where, i), item, sources) : [testOf(at(where, i), item, sources)]));
}

function testsOfFile(where: Where, ref: string, sources: Sources): RawTest[] {
  if (!ref.startsWith(FILE_PREFIX)) throw refuse(where, `a tests file is given as file://PATH, got ${shown(ref)}`);
  const { text, shown: file } = sources.text(where, ref);
  const ext = extname(file).toLowerCase();
  if (ext === '.csv') return csvTests(file, text, sources);
  const parsed = parsedFile({ file, path: '' }, text, ext);
  if (ext === '.jsonl') return (parsed as { line: number; value: unknown }[]).map((l) => testOf({ file, path: `line ${l.line}` }, l.value, sources));
  if (!Array.isArray(parsed)) throw refuse({ file, path: '' }, 'must hold a list of tests');
  return parsed.map((t, i) => testOf({ file, path: `[${i}]` }, t, sources));
}

function parsedFile(where: Where, text: string, ext: string): unknown {
  if (ext === '.yaml' || ext === '.yml') {
    try {
      return parseYaml(text);
    } catch (err) {
      throw refuse(where, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (ext === '.json') {
    try {
      return JSON.parse(text);
    } catch (err) {
      throw refuse(where, `not valid JSON: ${(err as Error).message}`);
    }
  }
  if (ext === '.jsonl') {
    return text.split(/\r?\n/).flatMap((line, i) => {
      if (line.trim() === '') return [];
      try {
        return [{ line: i + 1, value: JSON.parse(line) as unknown }];
      } catch (err) {
        throw refuse({ file: where.file, path: `line ${i + 1}` }, `not valid JSON: ${(err as Error).message}`);
      }
    });
  }
  throw refuse(where, `${ext || 'this'} files are not supported for tests (supported: .csv, .yaml, .yml, .json, .jsonl)`);
}

function testOf(where: Where, value: unknown, sources: Sources): RawTest {
  if (!isRecord(value)) throw refuse(where, `a test must be a mapping (vars, assert, …), got ${shown(value)}`);
  onlyKeys(where, value, TEST_KEYS, 'test');
  const { description, threshold } = value;
  if (description !== undefined && typeof description !== 'string') throw refuse(at(where, 'description'), `must be a string, got ${shown(description)}`);
  let judge: string | null = null;
  if (value.options !== undefined) {
    const w = at(where, 'options');
    if (!isRecord(value.options)) throw refuse(w, `must be a mapping, got ${shown(value.options)}`);
    onlyKeys(w, value.options, OPTION_KEYS, 'test option');
    if (value.options.provider !== undefined) judge = judgeModel(at(w, 'provider'), value.options.provider);
  }
  const asserts = value.assert ?? [];
  if (!Array.isArray(asserts)) throw refuse(at(where, 'assert'), `must be a list of asserts, got ${shown(asserts)}`);
  return {
    where,
    description: description ?? null,
    vars: varsOf(at(where, 'vars'), value.vars, sources),
    asserts: asserts.map((raw, i) => ({ where: at(at(where, 'assert'), i), raw })),
    threshold: thresholdOf(at(where, 'threshold'), threshold),
    judge,
  };
}

function thresholdOf(where: Where, t: unknown): number | null {
  if (t === undefined || t === null) return null;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 1) throw refuse(where, `must be a number from 0 to 1, got ${shown(t)}`);
  return t;
}

function varsOf(where: Where, vars: unknown, sources: Sources): Record<string, unknown> {
  if (vars === undefined || vars === null) return {};
  if (!isRecord(vars)) throw refuse(where, `must be a mapping of variable names to values, got ${shown(vars)}`);
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(vars)) {
    const w = at(where, name);
    if (Array.isArray(v)) throw refuse(w, 'a list of values (promptfoo runs every combination) is not supported; give one value per test');
    if (typeof v === 'string' && v.startsWith(FILE_PREFIX)) {
      const { absolute } = sources.resolve(w, v);
      const ext = extname(absolute).toLowerCase();
      if (!TEXT_VAR_FILES.includes(ext)) throw refuse(w, `${JSON.stringify(v)}: only text files (${TEXT_VAR_FILES.join(', ')}) can be a var's value`);
      out[name] = sources.text(w, v).text;
    } else out[name] = v;
  }
  return out;
}

function jsonVars(where: Where, vars: Record<string, unknown>): Record<string, Json> {
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, jsonVar(at(at(where, 'vars'), k), v)]));
}

function csvTests(file: string, text: string, sources: Sources): RawTest[] {
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvSyntaxError) throw refuse({ file, path: `line ${err.line}` }, `not valid CSV: ${err.detail}`, { cause: err });
    throw err;
  }
  const [header, ...rows] = records;
  if (!header) return [];
  for (const name of header.fields) {
    if (name.startsWith('__') && !/^__expected\d*$/.test(name) && !(CSV_SPECIAL as readonly string[]).includes(name))
      throw refuse(
        { file, path: 'line 1' },
        `column ${JSON.stringify(name)} is not supported (supported: __expected, __expected1…, ${CSV_SPECIAL.join(', ')}, and var columns)`,
      );
  }
  return rows.map((row) => {
    const where = { file, path: `line ${row.line}` };
    if (row.fields.length !== header.fields.length) throw refuse(where, `has ${row.fields.length} fields, the header ${header.fields.length}`);
    const vars: Record<string, unknown> = {};
    const asserts: RawTest['asserts'] = [];
    let description: string | null = null;
    let threshold: number | null = null;
    header.fields.forEach((name, i) => {
      const cell = row.fields[i]!;
      const w = at(where, name);
      if (name.startsWith('__expected')) {
        if (cell.trim() !== '') asserts.push({ where: w, raw: assertOfCell(w, cell) });
      } else if (name === '__description') description = cell === '' ? null : cell;
      else if (name === '__threshold') threshold = cell.trim() === '' ? null : thresholdOf(w, Number(cell));
      else vars[name] = cell;
    });
    return { where, description, vars: varsOf(at(where, 'vars'), vars, sources), asserts, threshold, judge: null };
  });
}

const ID = /^[A-Za-z0-9_-]{1,100}$/;

// A readable case id: the test's description made id-safe, else `test-<N>`; unique within the suite.
function caseId(description: string | null, i: number, taken: Set<string>): string {
  const slug = (description ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  let id = slug === '' ? `test-${i + 1}` : slug;
  if (taken.has(id)) id = `${id}-${i + 1}`;
  for (let n = 2; taken.has(id) || !ID.test(id); n++) id = `test-${i + 1}-${n}`;
  taken.add(id);
  return id;
}

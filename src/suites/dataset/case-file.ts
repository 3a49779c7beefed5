// Reading a case file. JSON Lines: one synchronous streaming pass that hashes the bytes and validates
// each line as it goes, so the first bad line is named by its number without holding the raw text.
// A JSON array or CSV (case-formats.ts) is read whole, then checked by the same rules, item by item.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { CaseLineError, DataChangedError, DatasetSuiteError } from './errors.js';
import { parseGrader } from './graders.js';
import { caseFormatOf, csvItems, jsonArrayItems, type CaseItem } from './case-formats.js';
import { stripBom } from '../../core/text-input.js';

/** A chat message of a `messages` case. */
export interface CaseMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One case as written in the file. */
export interface RawCase {
  id: string;
  /** 1-based line in the file, for messages about this case. */
  line: number;
  input: string | null;
  messages: CaseMessage[] | null;
  /** Absent (undefined) is reported when the grader is known. */
  expected: unknown;
  /** The case's own grader name, null for the suite's. */
  grader: string | null;
  /** Every other key: template variables. */
  vars: Record<string, unknown>;
}

/** A read case file: where, its hash, its cases in file order. */
export interface CaseFile {
  path: string;
  sha256: string;
  cases: RawCase[];
}

const RESERVED = new Set(['id', 'input', 'messages', 'expected', 'grader']);
const ID = /^[A-Za-z0-9_-]{1,100}$/;
const CHUNK = 1 << 16;

/** Calls `onLine` for every line (1-based number, without the line end) and returns the file's sha256. */
function streamLines(path: string, onLine: ((text: string, line: number) => void) | null): string {
  const hash = createHash('sha256');
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new DatasetSuiteError(`cannot read case file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let line = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      if (!onLine) continue;
      pending += decoder.write(buf.subarray(0, n));
      let start = 0;
      for (;;) {
        const nl = pending.indexOf('\n', start);
        if (nl < 0) break;
        // A UTF-8 byte-order mark before the first line is not part of it.
        const text = pending.slice(start, nl).replace(/\r$/, '');
        onLine(++line === 1 ? stripBom(text) : text, line);
        start = nl + 1;
      }
      pending = pending.slice(start);
    }
    pending += decoder.end();
    if (onLine && pending !== '') onLine(++line === 1 ? stripBom(pending.replace(/\r$/, '')) : pending.replace(/\r$/, ''), line);
    return hash.digest('hex');
  } finally {
    closeSync(fd);
  }
}

/** sha256 of a file, streamed. */
export function fileSha256(path: string): string {
  return streamLines(path, null);
}

/**
 * Reads a case file (JSON Lines, a .json array or a .csv table): hash, each case's shape (blank
 * lines skipped), unique ids. Throws CaseLineError naming the file and line of the first bad case.
 */
export function readCaseFile(path: string): CaseFile {
  const cases: RawCase[] = [];
  const lineOf = new Map<string, number>();
  const add = (c: RawCase) => {
    const first = lineOf.get(c.id);
    if (first !== undefined) throw new CaseLineError(path, c.line, `id ${JSON.stringify(c.id)} is used again (first on line ${first})`);
    lineOf.set(c.id, c.line);
    cases.push(c);
  };
  const format = caseFormatOf(path);
  let sha256: string;
  if (format === 'jsonl') {
    sha256 = streamLines(path, (text, line) => {
      if (text.trim() !== '') add(parseCase(path, text, line));
    });
  } else {
    const bytes = readWhole(path);
    sha256 = createHash('sha256').update(bytes).digest('hex');
    const text = stripBom(bytes.toString('utf8'));
    const items: CaseItem[] = format === 'json' ? jsonArrayItems(path, text) : csvItems(path, text);
    for (const item of items) add(parseCaseObject(path, item.value, item.line));
  }
  if (cases.length === 0) throw new DatasetSuiteError(`case file ${path} has no cases`);
  return { path, sha256, cases };
}

function readWhole(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new DatasetSuiteError(`cannot read case file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
}

/** Reads a case file that must have the given sha256; a changed or missing file is a DataChangedError. */
export function readPinnedCaseFile(path: string, sha256: string): CaseFile {
  let actual: string | null;
  try {
    actual = fileSha256(path);
  } catch {
    actual = null;
  }
  // Hash first: a changed file is reported as changed, not by whatever line now fails.
  if (actual !== sha256) throw new DataChangedError(path, sha256, actual);
  const file = readCaseFile(path);
  if (file.sha256 !== sha256) throw new DataChangedError(path, sha256, file.sha256);
  return file;
}

function parseCase(file: string, text: string, line: number): RawCase {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new CaseLineError(file, line, `not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseCaseObject(file, v, line);
}

/** One case object (a JSONL line's, an array item, a CSV row's), checked; errors name the file and the line. */
function parseCaseObject(file: string, v: unknown, line: number): RawCase {
  const bad = (detail: string) => new CaseLineError(file, line, detail);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('must be a JSON object');
  const o = v as Record<string, unknown>;
  const id = typeof o.id === 'number' && Number.isSafeInteger(o.id) && o.id >= 0 ? String(o.id) : o.id;
  if (typeof id !== 'string' || !ID.test(id))
    throw bad(`field id: must be letters, digits, "_" and "-" (at most 100), got ${JSON.stringify(o.id) ?? 'nothing'}`);
  const hasInput = Object.hasOwn(o, 'input');
  const hasMessages = Object.hasOwn(o, 'messages');
  if (hasInput === hasMessages) throw bad(`case ${id}: give exactly one of "input" and "messages"`);
  if (hasInput && typeof o.input !== 'string') throw bad(`case ${id}: field input: must be a string`);
  const messages = hasMessages ? parseMessages(o.messages, (d) => bad(`case ${id}: field messages: ${d}`)) : null;
  if (!Object.hasOwn(o, 'expected')) throw bad(`case ${id}: has no "expected"`);
  if (o.grader !== undefined) {
    const g = typeof o.grader === 'string' ? parseGrader(o.grader) : 'must be a string';
    if (typeof g === 'string') throw bad(`case ${id}: field grader: ${g}`);
  }
  const vars: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(o)) if (!RESERVED.has(k)) vars[k] = val;
  return { id, line, input: hasInput ? (o.input as string) : null, messages, expected: o.expected, grader: (o.grader as string | undefined) ?? null, vars };
}

function parseMessages(v: unknown, bad: (detail: string) => Error): CaseMessage[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('must be a non-empty array');
  return v.map((m, i) => {
    const r = m as Record<string, unknown> | null;
    if (r === null || typeof r !== 'object' || !['system', 'user', 'assistant'].includes(r.role as string) || typeof r.content !== 'string') {
      throw bad(`item ${i}: must be {"role": "system" | "user" | "assistant", "content": string}`);
    }
    return { role: r.role as CaseMessage['role'], content: r.content };
  });
}

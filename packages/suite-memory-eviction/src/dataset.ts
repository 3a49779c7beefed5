/**
 * Loading the pinned LongMemEval file (spec A3.1–A3.2). The hash is checked on the raw bytes
 * before anything is parsed; the file is never downloaded.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DatasetError, DatasetHashMismatchError } from './errors.js';
import { parsePythonJson, pythonJson } from './python-json.js';

/**
 * One dataset row as parsed. Floats are `PyFloat`, ints beyond 2^53 are `bigint` (so answers
 * stringify exactly as Python would); only `question_id` is checked at load time.
 */
export interface DatasetRow {
  question_id: string;
  [key: string]: unknown;
}

export interface LongMemEvalDataset {
  /** The file the rows came from (named in errors). */
  file: string;
  /** sha256 of the file bytes (equal to the pinned hash). */
  sha256: string;
  rows: readonly DatasetRow[];
  byId: ReadonlyMap<string, DatasetRow>;
}

/**
 * Reads `path`, checks its sha256 against `expectedSha256` before parsing (error
 * `SHA-256 mismatch` naming the file and both hashes), then checks that the root is a list of
 * objects with non-empty, unique string `question_id`s.
 */
export function loadDataset(path: string, expectedSha256: string): LongMemEvalDataset {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new DatasetError(path, `cannot read the dataset: ${(err as Error).message}`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expectedSha256.toLowerCase()) throw new DatasetHashMismatchError(path, expectedSha256, actual);

  let root: unknown;
  try {
    let text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    root = parsePythonJson(text);
  } catch (err) {
    throw new DatasetError(path, `not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(root)) throw new DatasetError(path, 'the root must be a list of objects');
  const byId = new Map<string, DatasetRow>();
  root.forEach((row: unknown, index) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new DatasetError(path, `row ${index} is not an object`);
    const id = (row as Record<string, unknown>).question_id;
    if (typeof id !== 'string' || id === '') throw new DatasetError(path, `row ${index}: question_id must be a non-empty string`);
    if (byId.has(id)) throw new DatasetError(path, `duplicate question_id`, id);
    byId.set(id, row as DatasetRow);
  });
  return { file: path, sha256: actual, rows: root as DatasetRow[], byId };
}

/** A3.2: a string answer stays; anything else is `json.dumps(v, ensure_ascii=False, sort_keys=True)`. */
export function stringifyAnswer(value: unknown): string {
  return typeof value === 'string' ? value : pythonJson(value, { sortKeys: true });
}

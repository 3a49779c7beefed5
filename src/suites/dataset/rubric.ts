// The model grader's rubric file: read and hashed when a run is planned, then pinned like the case
// file, so replay, resume and workers judge with the same rubric or refuse, naming the file.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DataChangedError, DatasetSuiteError } from './errors.js';

/** A read rubric: where, its hash, its text. */
export interface RubricFile {
  path: string;
  sha256: string;
  text: string;
}

/** Reads a rubric file; an unreadable, non-UTF-8 or empty one is a DatasetSuiteError naming it. */
export function readRubric(path: string): RubricFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw new DatasetSuiteError(`cannot read rubric file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    throw new DatasetSuiteError(`rubric file ${path} is not UTF-8 text`, { cause: err });
  }
  if (text.trim() === '') throw new DatasetSuiteError(`rubric file ${path} is empty`);
  return { path, sha256: createHash('sha256').update(bytes).digest('hex'), text };
}

/** Reads a rubric that must have the given sha256; a changed or missing file is a DataChangedError naming it. */
export function readPinnedRubric(path: string, sha256: string): RubricFile {
  let file: RubricFile;
  try {
    file = readRubric(path);
  } catch (err) {
    if (err instanceof DatasetSuiteError) throw new DataChangedError(path, sha256, null, 'rubric file');
    throw err;
  }
  if (file.sha256 !== sha256) throw new DataChangedError(path, sha256, file.sha256, 'rubric file');
  return file;
}

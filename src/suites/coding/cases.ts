// The coding suite's cases: tiny repositories shipped in manifests/coding/ (one folder per case).
// A case's `repo/` is what the job's workspace starts with (its TASK.md is the task statement);
// its `hidden/` holds the hidden tests, which never enter a workspace and are run by the grader
// only, on a copy of the files the job left.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { CaseSpec } from '../../harness/suite/types.js';

/** A coding case: its repository's files, the task statement, its visible and hidden tests. */
export interface CodingCase {
  id: string;
  /** The task statement (the repository's TASK.md). */
  statement: string;
  /** The repository, by relative path (`/` separators): the workspace a job starts with. */
  files: Readonly<Record<string, string>>;
  /** The repository's own tests (`test/*.test.js`), which the agent may run. */
  visibleTests: readonly string[];
  /** Hidden tests by file name (`sum_long.test.js`): never shown to the agent. */
  hidden: Readonly<Record<string, string>>;
}

/** The folder of the cases, hashed into provenance with the other manifests. */
export const CODING_MANIFESTS = new URL('../../../manifests/coding/', import.meta.url);
/** The statement file every case's repository has. */
export const TASK_FILE = 'TASK.md';

const Index = z.object({ version: z.literal(1), cases: z.array(z.string().regex(/^[a-z0-9_]+$/)).min(1) }).strict();

/** A case folder that is not as the suite needs it, named with the file. */
export class CodingCaseError extends Error {
  override name = 'CodingCaseError';
}

/** Loads every case listed in manifests/coding/cases.v1.json (or `root`'s). */
export function loadCodingCases(root: URL = CODING_MANIFESTS): CaseSpec<CodingCase>[] {
  const indexPath = new URL('cases.v1.json', root);
  const parsed = Index.safeParse(JSON.parse(readFileSync(indexPath, 'utf8')));
  if (!parsed.success)
    throw new CodingCaseError(`${fileURLToPath(indexPath)}: ${parsed.error.issues[0]?.path.join('.') || '(root)'}: ${parsed.error.issues[0]?.message}`);
  return parsed.data.cases.map((id) => ({ id, data: loadCase(new URL(`${id}/`, root), id) }));
}

function loadCase(dir: URL, id: string): CodingCase {
  const files = readTree(new URL('repo/', dir));
  const hidden = readTree(new URL('hidden/', dir));
  const statement = files[TASK_FILE];
  if (statement === undefined) throw new CodingCaseError(`${fileURLToPath(dir)}repo/${TASK_FILE}: missing (every case states its task there)`);
  const hiddenNames = Object.keys(hidden);
  if (hiddenNames.length === 0 || hiddenNames.some((n) => n.includes('/') || !n.endsWith('.test.js')))
    throw new CodingCaseError(`${fileURLToPath(dir)}hidden/: expected one or more *.test.js files and no folders`);
  const visibleTests = Object.keys(files).filter(isVisibleTest);
  return { id, statement, files, visibleTests, hidden };
}

/** Whether a repository path is one of its own tests (what `run_tests` runs): `test/**\/*.test.js`. */
export function isVisibleTest(path: string): boolean {
  return path.startsWith('test/') && path.endsWith('.test.js');
}

// Every file under `dir`, by relative path, in sorted order (the files are small text).
function readTree(dir: URL): Record<string, string> {
  const out: Record<string, string> = {};
  const root = fileURLToPath(dir);
  if (!existsSync(root)) throw new CodingCaseError(`${root}: missing (a case has a repo/ and a hidden/ folder)`);
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else out[path] = readFileSync(join(root, path), 'utf8');
    }
  };
  walk('');
  return out;
}

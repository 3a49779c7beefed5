// Two dataset runs whose answers differ on known cases, for the tests of `evalog compare` and of its
// page in the viewer: twelve cases whose expected answer is "yes"; each endpoint says "yes" to the
// cases of its set, and the candidate's endpoint refuses q12 (HTTP 400): a failed job, which pairs with nothing.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const IDS = Array.from({ length: 12 }, (_, i) => `q${String(i + 1).padStart(2, '0')}`);
export const BASE_PASS = new Set(['q01', 'q02', 'q03', 'q12']);
export const CAND_PASS = new Set(['q01', 'q02', 'q04', 'q05', 'q06', 'q07', 'q08', 'q09', 'q10', 'q11']);

/** A test endpoint's reply: "yes" to the cases of `pass`, "no" to the others, HTTP 400 to `refuse`. */
export const answer = (pass: Set<string>, refuse?: string) => (prompt: string) => {
  const id = /q\d\d/.exec(prompt)?.[0] ?? '';
  if (id === refuse) return 400;
  return pass.has(id) ? 'yes' : 'no';
};

/** Writes the case file `qa.jsonl` (and `other.jsonl`, the same cases and one more: another protocol) into `dir`. */
export async function writeCaseFiles(dir: string): Promise<void> {
  const cases = IDS.map((id) => JSON.stringify({ id, input: `Is ${id} a question?`, expected: 'yes' })).join('\n');
  await writeFile(join(dir, 'qa.jsonl'), `${cases}\n`);
  await writeFile(join(dir, 'other.jsonl'), `${cases}\n{"id": "extra", "input": "Is extra a question?", "expected": "yes"}\n`);
}

/** The environment that points a run at a test endpoint. */
export const endpointEnv = (url: string) => ({ EVALOG_BASE_URL: url, EVALOG_API_KEY: 'sk-test', EVALOG_CACHE_DIR: undefined });

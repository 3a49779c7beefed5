// The coding suite's grade: the case's hidden tests, run in the sandbox on a copy of the workspace
// the job left, one check per hidden test file. The workspace is the record's: the built-in
// worker's final artifact (its changes), or what an external agent left in its folder (captured
// when it exited); either way the grader records it, with its diff, before the checks, so a replay
// grades the same files and a rebuild needs no workspace.
import type { GradeInput, GradeOutput } from '../../harness/suite/types.js';
import { runTestFiles } from '../../sandbox/index.js';
import type { CodingCase } from './cases.js';
import { workspaceDiff } from './diff.js';
import { applied, changesOf } from './workspace.js';

/** Where the hidden tests are put in the grader's copy (a dot-named folder: never part of a job's captured work). */
export const HIDDEN_DIR = '.evalog-hidden';

/** The check id of a hidden test file (`sum_long.test.js` → `hidden:sum_long`). */
export function hiddenCheckId(file: string): string {
  return `hidden:${file.replace(/\.test\.js$/, '')}`;
}

/** Grades a job's workspace with the case's hidden tests. */
export async function gradeCoding(c: CodingCase, work: GradeInput): Promise<GradeOutput> {
  const changes = work.workspace ?? { changed: changesOf(work.final), skipped: [] };
  const files = applied(c.files, changes.changed);
  const names = Object.keys(c.hidden).sort();
  const tests = names.map((n) => `${HIDDEN_DIR}/${n}`);
  const copy: Record<string, string> = { ...files };
  for (const n of names) copy[`${HIDDEN_DIR}/${n}`] = c.hidden[n]!;
  const results = await runTestFiles({ files: copy, tests });
  const checks = results.map((r, i) => ({
    checkId: hiddenCheckId(names[i]!),
    visibility: 'hidden' as const,
    passed: r.passed,
    detail: r.passed ? 'passed' : `${r.status}: ${r.detail}`,
  }));
  return { checks, firstRevisionPassed: null, workspace: workspaceDiff(c.files, changes.changed, changes.skipped) };
}

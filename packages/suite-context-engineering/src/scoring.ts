import type { CheckResult, DataOf, GradeOutput } from 'evalog';
import type { CeEnvironment } from './environment.js';
import type { Scenario } from './scenarios.js';

type Scored = DataOf<'ScenarioScored'>;

/** The key evidence findings: fetched (a read covering the line, or a complete query, at the right revision) and cited. */
function evidenceOf(s: Scenario, env: CeEnvironment): Scored['evidence'] {
  return s.expect.evidence.map((e) => {
    const atRevision = (r: number) => e.revision === null || r === e.revision;
    const read = env.reads.some((r) => r.source === e.source && r.from <= e.line && e.line <= r.to && atRevision(r.revision));
    const queried = env.queried.some((q) => q.source === e.source && atRevision(q.revision));
    const cited = env.submission?.evidence.some((c) => c.source === e.source && c.line === e.line) ?? false;
    return { evidenceId: e.id, source: e.source, line: e.line, revision: e.revision, fetched: read || queried, cited };
  });
}

/** Final-state checks: each expected record, and the migrations applied in order, each once. */
function stateChecksOf(s: Scenario, env: CeEnvironment): Scored['stateChecks'] {
  const checks = Object.entries(s.expect.records)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, expected]) => {
      const actual = env.records[key] ?? null;
      return { checkId: `record:${key}`, passed: actual === expected, expected, actual };
    });
  if (s.expect.migrations) {
    const expected = s.expect.migrations.join(',');
    const actual = env.migrations.join(',');
    checks.push({ checkId: 'migrations', passed: actual === expected, expected, actual });
  }
  return checks;
}

/** Side effects applied more than once (the submission ends the task, so it is never one). */
function duplicatesOf(env: CeEnvironment): Scored['duplicateEffects'] {
  const counts = new Map<string, number>();
  for (const e of env.effects) counts.set(e.effect, (counts.get(e.effect) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n > 1)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([effect, times]) => ({ effect, times }));
}

/**
 * Scores a job on its final environment, blind to the cell: state-and-evidence.v1 = submitted,
 * every state check passed, every key evidence fetched and cited, no stale misuse, no duplicate.
 */
export function scoreScenario(s: Scenario, env: CeEnvironment): GradeOutput {
  const stateChecks = stateChecksOf(s, env);
  const evidence = evidenceOf(s, env);
  const duplicateEffects = duplicatesOf(env);
  const submitted = env.submission !== null;
  const success =
    submitted &&
    stateChecks.every((c) => c.passed) &&
    evidence.every((e) => e.fetched && e.cited) &&
    env.staleMisuses.length === 0 &&
    duplicateEffects.length === 0;
  const check = (checkId: string, passed: boolean, detail: string): CheckResult => ({ checkId, visibility: 'hidden', passed, detail });
  const checks = [
    check('submitted', submitted, submitted ? 'the task was submitted' : 'no submission'),
    ...stateChecks.map((c) => check(`state:${c.checkId}`, c.passed, `expected ${JSON.stringify(c.expected)}, got ${JSON.stringify(c.actual)}`)),
    ...evidence.map((e) =>
      check(
        `evidence:${e.evidenceId}`,
        e.fetched && e.cited,
        `${e.source} L${e.line}: ${e.fetched ? 'fetched' : 'not fetched'}, ${e.cited ? 'cited' : 'not cited'}`,
      ),
    ),
    check('no_stale_misuse', env.staleMisuses.length === 0, env.staleMisuses.map((m) => `${m.effect}: ${m.reason}`).join('; ') || 'none'),
    check('no_duplicate_effect', duplicateEffects.length === 0, duplicateEffects.map((d) => `${d.effect} x${d.times}`).join('; ') || 'none'),
  ];
  return { checks, firstRevisionPassed: null, scored: { success, submitted, stateChecks, evidence, staleMisuses: env.staleMisuses, duplicateEffects } };
}

import { draft, type AnyDraft } from '../kernel/journal.js';
import type { GradeOutput } from '../suite/types.js';

/** Turns the grader's findings into events: one per check, the structured findings if any, then the job's grade. */
export function decideGrade({ checks, firstRevisionPassed, scored }: GradeOutput): AnyDraft[] {
  const passed = checks.filter((c) => c.passed).length;
  return [
    ...checks.map((c) => draft('CheckEvaluated', { checkId: c.checkId, visibility: c.visibility, passed: c.passed, detail: c.detail })),
    ...(scored ? [draft('ScenarioScored', scored)] : []),
    draft('JobGraded', { passed: checks.length > 0 && passed === checks.length, checksPassed: passed, checksTotal: checks.length, firstRevisionPassed }),
  ];
}

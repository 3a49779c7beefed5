import type { StoredEvent } from '../../events/index.js';
import type { QaAnswerRow } from './qa-report.js';
import { gradeAnswer, GRADER_VERSION } from '../../graders/overlap.js';
import { qaTasks } from './qa-plan.js';
import type { Protocol } from './protocol.js';
import type { EvalCase } from './types.js';
import { UserError } from '../../core/errors.js';

/** grade-qa refuses: rows missing, or rows that do not match the recomputed protocol. */
export class GradeRefusedError extends UserError {
  override name = 'GradeRefusedError';
  constructor(message: string) {
    super(message);
  }
}

/** A graded qa.rows.jsonl row. */
export type GradedRow = Omit<QaAnswerRow, 'status'> & { grade_correct: boolean; grade_rule: string; grader_version: string };

/**
 * Checks every answered row against the tasks recomputed from the protocol and dataset (kept facts,
 * capacity, policy, fingerprint), requires all of them, then grades blind: the grader sees only
 * the prediction and the reference answer, never the policy or the row.
 */
export function gradeQaRows(protocol: Protocol, cases: readonly EvalCase[], rows: readonly QaAnswerRow[]): GradedRow[] {
  const tasks = qaTasks(protocol, cases);
  const byId = new Map(rows.map((r) => [r.row_id, r]));
  const missing = tasks
    .filter((t) => {
      const r = byId.get(t.row_id);
      return r?.status !== 'answered' || typeof r.prediction !== 'string';
    })
    .map((t) => t.row_id)
    .sort();
  if (missing.length > 0) throw new GradeRefusedError(`${missing.length} of ${tasks.length} rows are not answered yet (resume run-qa): ${missing.join(', ')}`);
  const out: GradedRow[] = [];
  for (const t of tasks) {
    const r = byId.get(t.row_id)!;
    const mismatch = (['policy', 'capacity', 'request_fingerprint'] as const).filter((k) => r[k] !== t[k]);
    if (r.kept_fact_ids.join('\u0000') !== t.kept_fact_ids.join('\u0000')) mismatch.push('kept_fact_ids' as never);
    if (mismatch.length > 0) throw new GradeRefusedError(`row ${t.row_id} does not match the protocol: ${mismatch.join(', ')}`);
    const { status: _s, ...row } = r;
    const grade = gradeAnswer(r.prediction!, t.case.answer);
    out.push({ ...row, grade_correct: grade.correct, grade_rule: grade.rule, grader_version: GRADER_VERSION });
  }
  return out.sort((a, b) => (a.row_id < b.row_id ? -1 : a.row_id > b.row_id ? 1 : 0));
}

/** Whether a stored event stream is a memory-eviction QA run. */
export function isQaRun(first: StoredEvent | undefined): boolean {
  return first?.type === 'RunStarted' && first.data.suite === 'memory-eviction';
}

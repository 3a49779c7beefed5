import type { StoredEvent } from 'evalog';
import { GRADER_VERSION, gradeAnswer, UserError } from 'evalog';
import type { Protocol } from './protocol.js';
import { qaTasks } from './qa-plan.js';
import type { QaAnswerRow } from './qa-report.js';
import type { EvalCase } from './types.js';

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
 * capacity, policy, fingerprint) and requires all of them; returns the rows without their status,
 * sorted by row id: what grade-qa grades.
 */
export function verifyQaRows(protocol: Protocol, cases: readonly EvalCase[], rows: readonly QaAnswerRow[]): AnswerRow[] {
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
  const out: AnswerRow[] = [];
  for (const t of tasks) {
    const r = byId.get(t.row_id)!;
    const mismatch = (['policy', 'capacity', 'request_fingerprint'] as const).filter((k) => r[k] !== t[k]);
    if (r.kept_fact_ids.join('\u0000') !== t.kept_fact_ids.join('\u0000')) mismatch.push('kept_fact_ids' as never);
    if (mismatch.length > 0) throw new GradeRefusedError(`row ${t.row_id} does not match the protocol: ${mismatch.join(', ')}`);
    const { status: _s, ...row } = r;
    out.push(row);
  }
  return out.sort(byRowId);
}

/** An answered row as grade-qa grades it: the answer row without its status. */
export type AnswerRow = Omit<QaAnswerRow, 'status'>;

/** The grade fields of a row. Blind: the grader sees the prediction and the reference answer only, never the policy or the row. */
export function gradeFields(prediction: string | null, reference: string): Pick<GradedRow, 'grade_correct' | 'grade_rule' | 'grader_version'> {
  const grade = gradeAnswer(prediction ?? '', reference);
  return { grade_correct: grade.correct, grade_rule: grade.rule, grader_version: GRADER_VERSION };
}

/** qa.rows.jsonl's order: by row id (code units). */
export function byRowId(a: { row_id: string }, b: { row_id: string }): number {
  return a.row_id < b.row_id ? -1 : a.row_id > b.row_id ? 1 : 0;
}

/** Verifies the rows (`verifyQaRows`) and grades each blind: the rows of qa.rows.jsonl, in one call. */
export function gradeQaRows(protocol: Protocol, cases: readonly EvalCase[], rows: readonly QaAnswerRow[]): GradedRow[] {
  const reference = new Map(cases.map((c) => [c.case_id, c.answer]));
  return verifyQaRows(protocol, cases, rows).map((r) => ({ ...r, ...gradeFields(r.prediction, reference.get(r.case_id)!) }));
}

/** Whether a stored event stream is a memory-eviction QA run. */
export function isQaRun(first: StoredEvent | undefined): boolean {
  return first?.type === 'RunStarted' && first.data.suite === 'memory-eviction';
}

// qa.summary.json and qa.stats.json (A7, A8) from graded qa.rows.jsonl rows, through src/stats.
import type { BootstrapOptions, SuiteStats } from 'evalog';
import { compareCodePoints, pairedSuiteStats, pairOutcomes, UserError } from 'evalog';
import { z } from 'zod';
import { EVICTION_POLICIES } from './selector.js';

/** The qa.rows.jsonl fields the statistics read; other fields pass through unchecked. */
export const QaRowSchema = z.object({
  case_id: z.string().min(1),
  row_id: z.string().optional(),
  source: z.string().min(1),
  scenario: z.string().min(1),
  policy: z.string().min(1),
  capacity: z.number().int(),
  grade_correct: z.boolean(),
  grader_version: z.string().min(1),
});
export type QaRow = z.infer<typeof QaRowSchema>;

export interface QaStatsOptions {
  readonly protocolId: string;
  readonly graderVersion: string;
  readonly qaCapacity: number;
  readonly bootstrap: BootstrapOptions;
}

export interface QaSummaryGroup {
  readonly source: string;
  readonly scenario: string;
  readonly policy: string;
  readonly cases: number;
  readonly correct: number;
  readonly accuracy: number;
}

/** qa.summary.json. */
export interface QaSummary {
  readonly schema_version: 1;
  readonly protocol_id: string;
  readonly grader_version: string;
  readonly qa_capacity: number;
  readonly groups: QaSummaryGroup[];
}

export const QA_SUITES = ['official', 'synthetic', 'overall'] as const;
export type QaSuite = (typeof QA_SUITES)[number];

/** qa.stats.json. */
export interface QaStats {
  readonly schema_version: 1;
  readonly protocol_id: string;
  readonly grader_version: string;
  readonly policies: [string, string];
  readonly suites: Record<QaSuite, SuiteStats>;
}

/** Rows that cannot produce the published statistics (wrong policy, capacity, grader, a case without both policies…). */
export class QaRowsError extends UserError {
  override name = 'QaRowsError';
}

/** Which source each suite keeps: official = LongMemEval cases, synthetic = the correction guards, overall = all. */
const SUITE_FILTER: Record<QaSuite, (source: string) => boolean> = {
  official: (s) => s === 'longmemeval',
  synthetic: (s) => s === 'synthetic',
  overall: () => true,
};

/** Groups by (source, scenario, policy), sorted on those keys by code point, with accuracy = correct / cases. */
export function summarizeQaRows(rows: readonly QaRow[]): QaSummaryGroup[] {
  const groups = new Map<string, { source: string; scenario: string; policy: string; cases: number; correct: number }>();
  for (const r of rows) {
    const key = JSON.stringify([r.source, r.scenario, r.policy]);
    const g = groups.get(key) ?? { source: r.source, scenario: r.scenario, policy: r.policy, cases: 0, correct: 0 };
    g.cases += 1;
    if (r.grade_correct) g.correct += 1;
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => compareCodePoints(a.source, b.source) || compareCodePoints(a.scenario, b.scenario) || compareCodePoints(a.policy, b.policy))
    .map((g) => ({ ...g, accuracy: g.correct / g.cases }));
}

function check(rows: readonly QaRow[], options: QaStatsOptions): void {
  if (rows.length === 0) throw new QaRowsError('no QA rows');
  const seen = new Set<string>();
  for (const r of rows) {
    const where = `row ${r.row_id ?? `${r.case_id}__${r.policy}`}`;
    if (!(EVICTION_POLICIES as readonly string[]).includes(r.policy))
      throw new QaRowsError(`${where}: unknown policy ${JSON.stringify(r.policy)} (expected ${EVICTION_POLICIES.join(' or ')})`);
    if (r.row_id !== undefined && r.row_id !== `${r.case_id}__${r.policy}`) throw new QaRowsError(`${where}: row_id does not match case_id and policy`);
    if (r.capacity !== options.qaCapacity) throw new QaRowsError(`${where}: capacity ${r.capacity}, expected the QA capacity ${options.qaCapacity}`);
    if (r.grader_version !== options.graderVersion)
      throw new QaRowsError(`${where}: grader_version ${JSON.stringify(r.grader_version)}, expected ${JSON.stringify(options.graderVersion)}`);
    const key = `${r.case_id}\u0000${r.policy}`;
    if (seen.has(key)) throw new QaRowsError(`${where}: duplicate row for case ${r.case_id}, policy ${r.policy}`);
    seen.add(key);
  }
  const sources = new Map<string, string>();
  for (const r of rows) {
    const s = sources.get(r.case_id);
    if (s !== undefined && s !== r.source) throw new QaRowsError(`case ${r.case_id}: rows disagree on source (${s} vs ${r.source})`);
    sources.set(r.case_id, r.source);
  }
  const missing = [...sources.keys()].filter((id) => EVICTION_POLICIES.some((p) => !seen.has(`${id}\u0000${p}`)));
  if (missing.length > 0) throw new QaRowsError(`cases missing one policy row: ${missing.sort(compareCodePoints).join(', ')}`);
}

/**
 * qa.summary.json and qa.stats.json from graded rows. Pairs are formed per case (first =
 * confidence, second = hybrid-v1) in case-id order, as the reference feeds its bootstrap; each
 * suite re-seeds the bootstrap. Throws QaRowsError on rows that do not form complete pairs at the
 * QA capacity with the given grader, or when a suite has no case.
 */
export function qaStatsFromRows(rows: readonly QaRow[], options: QaStatsOptions): { summary: QaSummary; stats: QaStats } {
  check(rows, options);
  const [first, second] = EVICTION_POLICIES;
  const suites = {} as Record<QaSuite, SuiteStats>;
  for (const suite of QA_SUITES) {
    const outcomes = rows.filter((r) => SUITE_FILTER[suite](r.source)).map((r) => ({ caseId: r.case_id, arm: r.policy, correct: r.grade_correct }));
    if (outcomes.length === 0) throw new QaRowsError(`suite ${suite} has no cases`);
    suites[suite] = pairedSuiteStats(pairOutcomes(outcomes, first, second), options.bootstrap);
  }
  return {
    summary: {
      schema_version: 1,
      protocol_id: options.protocolId,
      grader_version: options.graderVersion,
      qa_capacity: options.qaCapacity,
      groups: summarizeQaRows(rows),
    },
    stats: {
      schema_version: 1,
      protocol_id: options.protocolId,
      grader_version: options.graderVersion,
      policies: [first, second],
      suites,
    },
  };
}

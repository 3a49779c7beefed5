/**
 * Shared types of the memory-eviction suite (spec A3.7–A3.10).
 *
 * The selector, grader and QA runner import these; keep them stable.
 */

/** Scenarios of the official manifest, in protocol order (A2 `scenario_order`). */
export const OFFICIAL_SCENARIOS = ['confirmation_help', 'access_help', 'confidence_control', 'noisy_signal_control'] as const;
export type OfficialScenario = (typeof OFFICIAL_SCENARIOS)[number];

/** Scenario of the 5 synthetic correction guard cases. */
export const SYNTHETIC_SCENARIO = 'correction_reserve' as const;
export type SyntheticScenario = typeof SYNTHETIC_SCENARIO;

export type Scenario = OfficialScenario | SyntheticScenario;

export type CaseSource = 'longmemeval' | 'synthetic';

/** Question type of synthetic cases (A3.7). */
export const SYNTHETIC_QUESTION_TYPE = 'synthetic-correction' as const;

/** Categories a fact can carry in this suite. */
export type FactCategory = 'context' | 'preference' | 'correction';

/** A memory fact as fed to the selector (A3.9). Timestamps are ISO strings ending in `Z`. */
export interface Fact {
  id: string;
  content: string;
  category: FactCategory | string;
  confidence: number;
  createdAt: string;
  /** `deermem-eviction-eval:{question_id}` */
  source: string;
  /** Present only on confirmed facts. */
  lastConfirmedAt?: string;
  /** Present (value 1) only on confirmed facts. */
  confirmationCount?: number;
}

/** One usage-map entry (A3.9): only present for facts with access heat > 0. */
export interface FactUsage {
  accessHeat: number;
  accessCount: number;
  lastAccessedAt: string;
}

/** Usage map keyed by fact id. */
export type UsageMap = Record<string, FactUsage>;

/** One evaluation case: a question plus its candidate fact pool (A3.7–A3.10). */
export interface EvalCase {
  case_id: string;
  source: CaseSource;
  scenario: Scenario;
  /** `knowledge-update`, `temporal-reasoning` or `synthetic-correction`. */
  question_type: string;
  question: string;
  /** Reference answer, already stringified (A3.2). */
  answer: string;
  /** LongMemEval `question_date`; null for synthetic cases. */
  question_date: string | null;
  loss_rank: number;
  /** Pool of size `pool.size`, sorted by id (code-unit order == code-point order for ASCII ids). */
  facts: Fact[];
  usage: UsageMap;
  /** `[gold_{case_id}]` */
  support_fact_ids: string[];
}

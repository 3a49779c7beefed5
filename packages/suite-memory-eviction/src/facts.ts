/**
 * Fact construction (spec A3.8–A3.10): ids, metadata by scenario, timestamps relative to the
 * fixed evaluation clock, and the usage map.
 */
import type { Fact, FactUsage, Scenario } from './types.js';

export const SUPPORT_PREFIX = 'gold_';
export const FACT_SOURCE_PREFIX = 'deermem-eviction-eval:';
/** Access heat (and count) of a "hot" fact. */
export const HOT_ACCESS = 8;
const DEFAULT_AGE_DAYS = 180;
const CONFIRMED_AGE_DAYS = 7;

/** `gold_{case}` */
export function supportFactId(caseId: string): string {
  return `${SUPPORT_PREFIX}${caseId}`;
}

/** `d_{case}_{i}_{sourceQuestionId}` */
export function distractorFactId(caseId: string, index: number, sourceQuestionId: string): string {
  return `d_${caseId}_${index}_${sourceQuestionId}`;
}

/** How one fact is set up: everything but its id, content and source. */
export interface FactSetup {
  confidence: number;
  category: string;
  createdDaysAgo: number;
  /** Confirmed this many days before the evaluation time (sets lastConfirmedAt, confirmationCount 1). */
  confirmedDaysAgo: number | null;
  /** Access heat; a usage entry exists only when > 0. */
  heat: number;
}

const setup = (confidence: number, category: string, extra: Partial<FactSetup> = {}): FactSetup => ({
  confidence,
  category,
  createdDaysAgo: DEFAULT_AGE_DAYS,
  confirmedDaysAgo: null,
  heat: 0,
  ...extra,
});

/** A3.10: the support fact of a case in `scenario`. */
export function supportSetup(scenario: Scenario): FactSetup {
  switch (scenario) {
    case 'confirmation_help':
      return setup(0.7, 'context', { confirmedDaysAgo: CONFIRMED_AGE_DAYS });
    case 'access_help':
      return setup(0.7, 'context', { heat: HOT_ACCESS });
    case 'confidence_control':
      return setup(0.95, 'context', { createdDaysAgo: 30 });
    case 'noisy_signal_control':
      return setup(0.9, 'context');
    case 'correction_reserve':
      return setup(0.65, 'correction');
  }
}

/**
 * A3.10: distractor `i` (0-based, in draw order) of a case in `scenario` whose support fact has
 * `lossRank` (the support is outranked by `lossRank − 1` distractors on confidence).
 */
export function distractorSetup(scenario: Scenario, i: number, lossRank: number, category: string): FactSetup {
  const outranking = lossRank - 1;
  const alternate = (): Partial<FactSetup> => (i % 2 === 1 ? { confirmedDaysAgo: CONFIRMED_AGE_DAYS } : { heat: HOT_ACCESS });
  switch (scenario) {
    case 'confirmation_help':
    case 'access_help':
      return setup(i < outranking ? 0.94 - 0.02 * i : 0.68 - 0.02 * (i - outranking), category);
    case 'confidence_control':
      return i < 5 ? setup(0.94 - 0.02 * i, category) : setup(0.7, category, alternate());
    case 'noisy_signal_control':
      return setup(0.7, category, i < outranking ? alternate() : {});
    case 'correction_reserve':
      return setup(i < outranking ? 0.9 - 0.03 * i : 0.6 - 0.02 * (i - outranking), category);
  }
}

/** Distractor category from its source question type. */
export function distractorCategory(questionType: string): string {
  return questionType === 'single-session-preference' ? 'preference' : 'context';
}

/** `evaluationTime − days` as ISO 8601 with `Z` (Python isoformat, `+00:00` → `Z`). */
export function isoDaysBefore(evaluationTime: Date, days: number): string {
  return isoUtc(new Date(evaluationTime.getTime() - days * 86_400_000));
}

/** A UTC instant as `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`. */
export function isoUtc(t: Date): string {
  const iso = t.toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const ms = t.getUTCMilliseconds();
  return `${iso.slice(0, 19)}${ms === 0 ? '' : `.${String(ms * 1000).padStart(6, '0')}`}Z`;
}

/** Builds the fact object and its usage entry (null when the fact has no access heat). */
export function makeFact(id: string, content: string, sourceQuestionId: string, s: FactSetup, evaluationTime: Date): { fact: Fact; usage: FactUsage | null } {
  const fact: Fact = {
    id,
    content,
    category: s.category,
    confidence: s.confidence,
    createdAt: isoDaysBefore(evaluationTime, s.createdDaysAgo),
    source: `${FACT_SOURCE_PREFIX}${sourceQuestionId}`,
  };
  if (s.confirmedDaysAgo !== null) {
    fact.lastConfirmedAt = isoDaysBefore(evaluationTime, s.confirmedDaysAgo);
    fact.confirmationCount = 1;
  }
  const usage = s.heat > 0 ? { accessHeat: s.heat, accessCount: s.heat, lastAccessedAt: isoUtc(evaluationTime) } : null;
  return { fact, usage };
}

// The assert types evalog runs from a promptfoo config, and the shape each compiled assert is kept in.
// A compiled assert is plain JSON: it goes into the case's `expected`, so it is hashed into the log
// with the case, shown in the rows beside the output, and read back by the one scorer of the suite.

/** Assert types evalog runs (each may also be written `not-<type>`). */
export const ASSERT_TYPES = [
  'equals',
  'contains',
  'icontains',
  'contains-any',
  'contains-all',
  'icontains-any',
  'icontains-all',
  'starts-with',
  'regex',
  'is-json',
  'contains-json',
  'javascript',
  'similar',
  'levenshtein',
  'llm-rubric',
  'model-graded-closedqa',
  'factuality',
  'model-graded-factuality',
] as const;

/** One supported assert type. */
export type AssertType = (typeof ASSERT_TYPES)[number];

/** The types a judge model grades. */
export const JUDGED_TYPES: readonly AssertType[] = ['llm-rubric', 'model-graded-closedqa', 'factuality', 'model-graded-factuality'];

/**
 * promptfoo's other assert types, known so that a CSV `__expected` cell naming one is refused
 * rather than read as text to compare with (promptfoo's reading of an unknown prefix).
 */
export const OTHER_PROMPTFOO_TYPES = [
  'answer-relevance',
  'bleu',
  'classifier',
  'contains-html',
  'contains-sql',
  'contains-xml',
  'context-faithfulness',
  'context-recall',
  'context-relevance',
  'conversation-relevance',
  'cost',
  'finish-reason',
  'g-eval',
  'gleu',
  'guardrails',
  'human',
  'is-html',
  'is-refusal',
  'is-sql',
  'is-valid-function-call',
  'is-valid-openai-function-call',
  'is-valid-openai-tools-call',
  'is-xml',
  'latency',
  'meteor',
  'moderation',
  'perplexity',
  'perplexity-score',
  'pi',
  'python',
  'rouge-n',
  'ruby',
  'select-best',
  'max-score',
  'similar:cosine',
  'similar:dot',
  'similar:euclidean',
  'tool-call-f1',
  'trace-error-spans',
  'trace-span-count',
  'trace-span-duration',
  'webhook',
  'assert-set',
] as const;

/** A JSON value, as a compiled assert holds its value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One assert, compiled: its type (without `not-`), whether it is negated, its rendered value and options. */
export interface CompiledAssert {
  type: AssertType;
  not: boolean;
  /** The value with the test's vars put in (null when the type takes none or none was given). */
  value: Json;
  /** The type's threshold (similar's least ratio, levenshtein's most edits, javascript's least score); null = none. */
  threshold: number | null;
  /** Its weight in the test's weighted score (promptfoo's default 1; 0 = shown, never failing the test). */
  weight: number;
  /** The judge's model for a model-graded type (null = the run's endpoint model). */
  model: string | null;
}

/** A case's `expected`: its asserts, the test's threshold, and its vars when a javascript assert reads them. */
export interface PromptfooExpected {
  asserts: CompiledAssert[];
  /** The test's threshold on the weighted score; null = every assert must pass. */
  threshold: number | null;
  vars: Record<string, Json> | null;
}

/** Whether a type is graded by a judge model. */
export function isJudged(type: AssertType): boolean {
  return JUDGED_TYPES.includes(type);
}

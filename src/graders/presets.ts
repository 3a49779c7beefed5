// Ready-made model-graded checks: closed question answering and factual agreement with a reference.
// Each is `modelGraded` with a rubric written for evalog (the judge prompt, its strict verdict format
// and its blindness to the arm are model-graded.ts's), and says up front when a case lacks the
// `expected` the rubric compares with.
import { preview } from '../sandbox/json-equal.js';
import { isPlainObject, knownOptions, ScorerOptionError } from './kit.js';
import { modelGraded, type ModelGrader } from './model-graded.js';

/** The closed-QA rubric when the case's `expected` is the right answer. */
export const CLOSED_QA_RUBRIC = [
  'Closed question answering: the input asks a question with one right answer, and the expected value is that answer.',
  'Pass when the output answers the question that was asked and its answer means the same as the expected one.',
  'Other wording, another way of writing a number or unit, and added explanation are fine, as long as nothing in the output contradicts the expected answer.',
  'Fail when the output gives another answer, offers several answers without settling on one, declines to answer, or answers a different question.',
].join('\n');

/** The closed-QA rubric around a criterion the output must meet. */
export function closedQaRubric(criterion: string): string {
  return [
    'Closed question answering: the input asks a question, and the output must meet this criterion:',
    criterion,
    'Pass only when the output answers the question that was asked and meets the criterion; when an expected value is given, its answer must also agree with it.',
    'Fail when the output misses the criterion, declines to answer, offers several answers without settling on one, or answers a different question.',
  ].join('\n');
}

/** The factuality rubric: the output's claims against the expected value taken as true. */
export const FACTUALITY_RUBRIC = [
  'Factual agreement: the expected value is a reference answer to the question in the input, and it is taken as true.',
  'Read the claims the output makes that bear on the question and compare each with the reference.',
  'Pass when no claim contradicts the reference: the output may state the same facts in other words, only some of them, or more detail than the reference gives, as long as that detail does not conflict with it.',
  'Fail when any claim conflicts with the reference, or when the output makes no claim about the question at all.',
  'Style, length, order and tone do not matter.',
].join('\n');

/** The judge of a preset: the run's endpoint model unless `model` names another; the check id unless `name` gives one. */
export interface PresetOptions {
  model?: string;
  name?: string;
}

/**
 * Closed QA: the output answers the input's question correctly. Without a criterion the case's
 * `expected` is the right answer (and a case without one is refused when cases load); with one,
 * the output must meet it, and agree with `expected` when the case gives one.
 */
export function closedQa(options: PresetOptions & { criterion?: string } = {}): ModelGrader {
  const o = checked('closedQa', options, ['model', 'name', 'criterion']);
  const criterion = o.criterion;
  if (criterion !== undefined && (typeof criterion !== 'string' || criterion.trim() === ''))
    throw new ScorerOptionError(`closedQa: criterion must be a non-empty string, got ${preview(criterion, 60)}`);
  const rubric = criterion === undefined ? CLOSED_QA_RUBRIC : closedQaRubric(criterion.trim());
  const grader = modelGraded({ rubric, ...judgeOf(o), name: o.name ?? 'closed-qa' });
  if (criterion !== undefined) return grader;
  return { ...grader, problem: (expected) => missingExpected(expected, grader.name, 'the right answer') };
}

/** Factuality: the output's claims agree with the case's `expected`, a reference answer taken as true (required). */
export function factuality(options: PresetOptions = {}): ModelGrader {
  const o = checked('factuality', options, ['model', 'name']);
  const grader = modelGraded({ rubric: FACTUALITY_RUBRIC, ...judgeOf(o), name: o.name ?? 'factuality' });
  return { ...grader, problem: (expected) => missingExpected(expected, grader.name, 'the reference answer') };
}

function missingExpected(expected: unknown, name: string, what: string): string | null {
  return expected === undefined || expected === null ? `has no "expected" (grader ${name} compares the output with ${what})` : null;
}

function checked<O extends PresetOptions>(preset: string, options: O, known: readonly string[]): O {
  if (!isPlainObject(options)) throw new ScorerOptionError(`${preset}: options must be an object, got ${preview(options, 60)}`);
  knownOptions(preset, options, known);
  for (const key of ['model', 'name'] as const) {
    const v = options[key];
    if (v !== undefined && (typeof v !== 'string' || v.trim() === ''))
      throw new ScorerOptionError(`${preset}: ${key} must be a non-empty string, got ${preview(v, 60)}`);
  }
  return options;
}

function judgeOf(o: PresetOptions): { model?: string } {
  return o.model === undefined ? {} : { model: o.model };
}

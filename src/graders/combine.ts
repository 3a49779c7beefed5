// Combinations of scorers: a weighted score against a threshold, all parts passing, any part passing.
// A combination of deterministic scorers is itself a Scorer; with a judged part (a model-graded check)
// it is a JudgedScorer, its parts graded one after another in the order given, so the judge calls of
// a job are numbered the same on every run and replay. Each part grades blind to the arm, so the whole does.
import { preview } from '../sandbox/json-equal.js';
import { ScorerOptionError, shown } from './kit.js';
import type { AnyScorer, JudgedScorer, JudgePort, JudgeSample, ScoreContext, Scorer, Verdict } from './types.js';

/** Whether a grader is deterministic (it has `score`) rather than judged. */
export function isScorer(s: AnyScorer): s is Scorer {
  return typeof (s as Partial<Scorer>).score === 'function';
}

/**
 * Grades one sample with any grader: a deterministic one from the output, `expected` and the input
 * (no judge call), a judged one through the port. What a suite runs for each grader it lists.
 */
export async function gradeSample(s: AnyScorer, port: JudgePort, sample: JudgeSample): Promise<Verdict> {
  return isScorer(s) ? s.score(sample.output, sample.expected, { input: sample.input }) : s.grade(port, sample);
}

/** The same grader under another check id, so two of one kind in a suite record apart. */
export function named<S extends AnyScorer>(name: string, s: S): S {
  if (typeof name !== 'string' || name.trim() === '') throw new ScorerOptionError(`named: the name must be a non-empty string, got ${preview(name, 60)}`);
  return { ...s, name };
}

/** A weighted combination's option: the least weighted score (0..1) that passes. */
export interface WeightedOptions {
  threshold: number;
}

/**
 * Passes when Σ weight·score / Σ weight ≥ threshold, where a part's score is its verdict's `score`
 * (a similarity, a function's number) or else 1 when it passed and 0 when it did not. A weight of 0
 * lists a part without counting it. The verdict's score is the weighted score; any part that could
 * not decide (an `error` verdict) makes the whole an error, never a pass.
 * `weighted([[contains('Paris'), 2], [similar(), 1]], { threshold: 0.7 })`.
 */
export function weighted(parts: readonly (readonly [Scorer, number])[], options: WeightedOptions): Scorer;
export function weighted(parts: readonly (readonly [AnyScorer, number])[], options: WeightedOptions): JudgedScorer;
export function weighted(parts: readonly (readonly [AnyScorer, number])[], options: WeightedOptions): AnyScorer {
  if (!Array.isArray(parts) || parts.length === 0) throw new ScorerOptionError('weighted: give at least one [scorer, weight] part');
  const threshold = options?.threshold;
  if (typeof threshold !== 'number' || !Number.isFinite(threshold) || threshold < 0 || threshold > 1)
    throw new ScorerOptionError(`weighted: threshold must be a number between 0 and 1, got ${preview(threshold, 60)}`);
  const list = parts.map((p: readonly [AnyScorer, number] | unknown, i): Part => {
    // Checked at run time too: a suite written in JavaScript, or built from a config, has no types.
    if (!Array.isArray(p) || p.length !== 2) throw new ScorerOptionError(`weighted: part ${i + 1} must be [scorer, weight], got ${preview(p, 60)}`);
    const [scorer, weight] = p as unknown[];
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
      throw new ScorerOptionError(`weighted: the weight of part ${i + 1} must be a number of at least 0, got ${preview(weight, 60)}`);
    return { scorer: checkedPart('weighted', scorer, i), weight };
  });
  const total = list.reduce((sum, p) => sum + (p.weight ?? 0), 0);
  if (total <= 0) throw new ScorerOptionError('weighted: the weights add up to 0: give at least one part a weight above 0');
  return combination('weighted', list, (results) => {
    const score = results.reduce((sum, r) => sum + (r.weight ?? 0) * partScore(r.verdict), 0) / total;
    // The sum of decimal weights is not exact in binary: a score written equal to the threshold passes.
    const passed = score >= threshold - 1e-12;
    return { passed, score, head: `weighted score ${shown(score)}, ${passed ? 'at least' : 'below'} ${threshold}` };
  });
}

/** Passes when every part passes. */
export function all(...parts: Scorer[]): Scorer;
export function all(...parts: AnyScorer[]): JudgedScorer;
export function all(...parts: AnyScorer[]): AnyScorer {
  const list = partsOf('all', parts);
  return combination('all', list, (results) => {
    const failed = results.filter((r) => !r.verdict.passed).length;
    return { passed: failed === 0, head: failed === 0 ? `all ${results.length} parts passed` : `${failed} of ${results.length} parts failed (all must pass)` };
  });
}

/** Passes when at least one part passes. */
export function any(...parts: Scorer[]): Scorer;
export function any(...parts: AnyScorer[]): JudgedScorer;
export function any(...parts: AnyScorer[]): AnyScorer {
  const list = partsOf('any', parts);
  return combination('any', list, (results) => {
    const passed = results.filter((r) => r.verdict.passed).length;
    return { passed: passed > 0, head: passed > 0 ? `${passed} of ${results.length} parts passed` : `none of ${results.length} parts passed (one must)` };
  });
}

interface Part {
  scorer: AnyScorer;
  /** The part's weight in a weighted combination; null in all/any. */
  weight: number | null;
}

interface PartResult extends Part {
  verdict: Verdict;
}

type Decide = (results: readonly PartResult[]) => { passed: boolean; score?: number; head: string };

function partsOf(kind: string, parts: readonly AnyScorer[]): Part[] {
  if (parts.length === 0) throw new ScorerOptionError(`${kind}: give at least one scorer`);
  return parts.map((s, i) => ({ scorer: checkedPart(kind, s, i), weight: null }));
}

function checkedPart(kind: string, s: unknown, i: number): AnyScorer {
  const g = s as Partial<Scorer & JudgedScorer> | null;
  const ok = g !== null && typeof g === 'object' && typeof g.name === 'string' && typeof g.problem === 'function';
  if (!ok || (typeof g.score !== 'function' && typeof g.grade !== 'function'))
    throw new ScorerOptionError(`${kind}: part ${i + 1} is not a scorer, got ${preview(s, 60)}`);
  return s as AnyScorer;
}

function combination(name: string, parts: readonly Part[], decide: Decide): AnyScorer {
  const problem = (expected: unknown): string | null => {
    for (const [i, p] of parts.entries()) {
      const why = p.scorer.problem(expected);
      if (why !== null) return `part [${i + 1}] ${p.scorer.name}: ${why}`;
    }
    return null;
  };
  const finish = (results: PartResult[]) => combined(results, decide);
  if (parts.every((p) => isScorer(p.scorer))) {
    return {
      name,
      problem,
      score: (output: string, expected: unknown, context?: ScoreContext) =>
        finish(parts.map((p) => ({ ...p, verdict: (p.scorer as Scorer).score(output, expected, context) }))),
    } satisfies Scorer;
  }
  return {
    name,
    problem,
    async grade(port: JudgePort, sample: JudgeSample) {
      const results: PartResult[] = [];
      // One after another, never in parallel: the judge port numbers its calls in the order they are made.
      for (const p of parts) results.push({ ...p, verdict: await gradeSample(p.scorer, port, sample) });
      return finish(results);
    },
  } satisfies JudgedScorer;
}

function combined(results: readonly PartResult[], decide: Decide): Verdict {
  const listed = results
    .map((r, i) => `[${i + 1}] ${r.scorer.name}${r.weight === null ? '' : ` ×${r.weight}`} ${outcome(r.verdict)}: ${r.verdict.detail}`)
    .join(' ');
  const undecided = results.findIndex((r) => r.verdict.error === true);
  if (undecided >= 0)
    return { passed: false, detail: `grading error: part [${undecided + 1}] ${results[undecided]!.scorer.name} could not decide: ${listed}`, error: true };
  const d = decide(results);
  const v: Verdict = { passed: d.passed, detail: `${d.head}: ${listed}` };
  return d.score === undefined ? v : { ...v, score: d.score };
}

function outcome(v: Verdict): string {
  if (v.error === true) return 'error';
  return v.passed ? 'pass' : 'fail';
}

function partScore(v: Verdict): number {
  return v.score ?? (v.passed ? 1 : 0);
}

// The one scorer of a suite compiled from a promptfoo config. Each case's `expected` holds its test's
// compiled asserts (plain JSON, hashed with the case); this scorer builds evalog's graders from them
// and combines them as promptfoo does: without a test threshold every assert must pass, with one the
// weighted mean of the asserts' scores must reach it. A config with any model-graded assert gets the
// judged form (its judge calls go through the harness's port, recorded like any model call); the
// deterministic form otherwise, so a config without a judge never needs one.
import {
  all,
  any,
  closedQa,
  contains,
  equals,
  factuality,
  gradeSample,
  icontains,
  isJson,
  javascript,
  jsonSchema,
  levenshtein,
  modelGraded,
  named,
  regex,
  similar,
  weighted,
} from '../../graders/index.js';
import type { AnyScorer, JavascriptResult, JudgedScorer, Scorer, Verdict } from '../../graders/index.js';
import { ASSERT_TYPES, type CompiledAssert, type PromptfooExpected } from './assert-types.js';
import { isRecord } from './errors.js';
import { compileJsCheck, runJsCheck } from './js-check.js';
import { containsJson, judgedWith, negated, startsWith, weightless } from './scorers-extra.js';

/** The check id the suite records. */
export const PROMPTFOO_CHECK_ID = 'promptfoo-asserts';

/** The suite's scorer: judged when any test has a model-graded assert. */
export function promptfooScorer(judged: boolean): AnyScorer {
  if (!judged) {
    return {
      name: PROMPTFOO_CHECK_ID,
      problem,
      score: (output, expected, context) => {
        const s = caseScorer(expected as PromptfooExpected);
        return s === null ? NO_ASSERTS : (s as Scorer).score(output, expected, context);
      },
    } satisfies Scorer;
  }
  return {
    name: PROMPTFOO_CHECK_ID,
    problem,
    grade: async (port, sample) => {
      const s = caseScorer(sample.expected as PromptfooExpected);
      return s === null ? NO_ASSERTS : gradeSample(s, port, sample);
    },
  } satisfies JudgedScorer;
}

/** promptfoo passes a test without asserts. */
const NO_ASSERTS: Verdict = { passed: true, detail: 'no assertions' };

function problem(expected: unknown): string | null {
  if (!isRecord(expected) || !Array.isArray(expected.asserts)) return '"expected" must hold the compiled asserts of a promptfoo test';
  const bad = expected.asserts.findIndex((a) => !isRecord(a) || !(ASSERT_TYPES as readonly unknown[]).includes(a.type));
  return bad < 0 ? null : `"expected".asserts[${bad}] is not a compiled assert`;
}

/** The grader of one case's asserts, combined as promptfoo combines them (null: it has none). */
export function caseScorer(expected: PromptfooExpected): AnyScorer | null {
  const parts = expected.asserts.map((a) => {
    let s = graderOf(a, expected.vars ?? {});
    if (a.not) s = negated(s);
    if (a.weight === 0) s = weightless(s);
    return [s, a.weight] as const;
  });
  if (parts.length === 0) return null;
  if (expected.threshold === null) return all(...parts.map(([s]) => s));
  return weighted(parts, { threshold: expected.threshold });
}

function graderOf(a: CompiledAssert, vars: Readonly<Record<string, unknown>>): AnyScorer {
  const v = a.value;
  const text = typeof v === 'string' ? v : String(v);
  const judge = a.model === null ? {} : { model: a.model };
  switch (a.type) {
    case 'equals':
      return equals(v);
    case 'contains':
      return contains(text);
    case 'icontains':
      return icontains(text);
    case 'contains-any':
      return named('contains-any', any(...(v as string[]).map((x) => contains(x))));
    case 'contains-all':
      return named('contains-all', all(...(v as string[]).map((x) => contains(x))));
    case 'icontains-any':
      return named('icontains-any', any(...(v as string[]).map((x) => icontains(x))));
    case 'icontains-all':
      return named('icontains-all', all(...(v as string[]).map((x) => icontains(x))));
    case 'starts-with':
      return startsWith(text);
    case 'regex':
      return regex({ pattern: text });
    case 'is-json':
      return v === null ? isJson() : jsonSchema(v as Record<string, unknown> | boolean);
    case 'contains-json':
      return containsJson(v);
    case 'javascript': {
      const fn = jsCheckSource(text);
      return javascript((output) => runJsCheck(fn, output, vars) as JavascriptResult, a.threshold === null ? {} : { threshold: a.threshold });
    }
    case 'similar':
      return similar(text, { threshold: a.threshold! });
    case 'levenshtein':
      return levenshtein(text, { max: a.threshold! });
    case 'llm-rubric':
      return judgedWith(modelGraded({ rubric: text, name: 'llm-rubric', ...judge }), null);
    case 'model-graded-closedqa':
      return judgedWith(closedQa({ criterion: text, name: 'model-graded-closedqa', ...judge }), null);
    case 'factuality':
    case 'model-graded-factuality':
      return judgedWith(factuality({ name: a.type, ...judge }), text);
    default: {
      const never: never = a.type;
      throw new Error(`unhandled assert type ${String(never)}`);
    }
  }
}

// The source was checked when the config loaded; this builds it again from the same text.
function jsCheckSource(code: string): string {
  return compileJsCheck({ file: 'the config', path: 'javascript' }, code);
}

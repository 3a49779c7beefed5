// promptfoo's `assert` entries, checked and compiled for one test: the type is one evalog runs (or
// it is refused by name and place), the keys are ones evalog reads, string values get the test's
// vars put in (as promptfoo renders them), and each value is checked the way its grader will read it
// (a pattern compiles, a schema is within evalog's subset, a javascript check parses and passes the
// static rules) so that nothing is found wrong only when the first answer is graded.
import { compileJsonSchema, JsonSchemaError } from '../../graders/index.js';
import { parse as parseYaml } from 'yaml';
import { ASSERT_TYPES, type AssertType, type CompiledAssert, isJudged, type Json, OTHER_PROMPTFOO_TYPES } from './assert-types.js';
import { at, isRecord, onlyKeys, refuse, shown, type Where } from './errors.js';
import { compileJsCheck } from './js-check.js';
import { modelOf } from './providers.js';
import { FILE_PREFIX, type Sources } from './sources.js';
import { renderWith } from './template.js';

const KEYS = ['type', 'value', 'threshold', 'weight', 'provider'] as const;
/** promptfoo's defaults: similar's least ratio and levenshtein's most edits. */
export const SIMILAR_DEFAULT = 0.75;
export const LEVENSHTEIN_DEFAULT = 5;

/** What compiling an assert needs of its test: the vars, how messages name the test, the judge model its options give. */
export interface AssertContext {
  vars: Readonly<Record<string, unknown>>;
  whose: string;
  judge: string | null;
  sources: Sources;
}

/** The assert type `type` names (with its `not-`), or a refusal listing the supported ones. */
export function assertType(where: Where, type: unknown): { type: AssertType; not: boolean } {
  if (typeof type !== 'string' || type === '') throw refuse(where, `must name an assert type, got ${shown(type)}`);
  const not = type.startsWith('not-');
  const base = not ? type.slice(4) : type;
  if ((ASSERT_TYPES as readonly string[]).includes(base)) return { type: base as AssertType, not };
  const known = (OTHER_PROMPTFOO_TYPES as readonly string[]).includes(base) || base.startsWith('promptfoo:');
  throw refuse(
    where,
    `${JSON.stringify(type)} is not supported${known ? '' : ' (not an assert type evalog knows)'} (supported: ${ASSERT_TYPES.join(', ')}, each also as not-<type>)`,
  );
}

/** Compiles one assert entry for one test. */
export function compileAssert(where: Where, raw: unknown, ctx: AssertContext): CompiledAssert {
  if (!isRecord(raw)) throw refuse(where, `an assert must be a mapping with a type, got ${shown(raw)}`);
  onlyKeys(where, raw, KEYS, 'assert');
  const { type, not } = assertType(at(where, 'type'), raw.type);
  const judged = isJudged(type);
  if (raw.provider !== undefined && !judged) throw refuse(at(where, 'provider'), `is read only by model-graded asserts, not by ${type}`);
  const weight = raw.weight === undefined ? 1 : raw.weight;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
    throw refuse(at(where, 'weight'), `must be a number of at least 0, got ${shown(weight)}`);
  const model = raw.provider === undefined ? ctx.judge : judgeModel(at(where, 'provider'), raw.provider);
  const value = rendered(at(where, 'value'), raw.value, ctx);
  const threshold = thresholdOf(at(where, 'threshold'), type, raw.threshold);
  return { type, not, value: checkedValue(at(where, 'value'), type, value, threshold), threshold, weight, model: judged ? model : null };
}

/** A judge given as a provider id (or `{ id }`): its model. */
export function judgeModel(where: Where, provider: unknown): string {
  if (isRecord(provider)) {
    onlyKeys(where, provider, ['id'], 'grading provider');
    return modelOf(at(where, 'id'), provider.id);
  }
  return modelOf(where, provider);
}

function thresholdOf(where: Where, type: AssertType, t: unknown): number | null {
  if (t === undefined || t === null) {
    if (type === 'similar') return SIMILAR_DEFAULT;
    if (type === 'levenshtein') return LEVENSHTEIN_DEFAULT;
    return null;
  }
  if (type !== 'similar' && type !== 'levenshtein' && type !== 'javascript')
    throw refuse(where, `is not read by ${type} (a threshold is read by similar, levenshtein and javascript)`);
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) throw refuse(where, `must be a number of at least 0, got ${shown(t)}`);
  if (type !== 'levenshtein' && t > 1) throw refuse(where, `must be a number from 0 to 1 for ${type}, got ${t}`);
  return type === 'levenshtein' ? Math.floor(t) : t;
}

// String values (and strings in a list) get the test's vars; a `file://` text file is read first.
function rendered(where: Where, value: unknown, ctx: AssertContext): unknown {
  if (typeof value === 'string') {
    const text = value.startsWith(FILE_PREFIX) ? ctx.sources.text(where, value).text : value;
    return renderWith(where, text, ctx.vars, ctx.whose);
  }
  if (Array.isArray(value)) return value.map((v, i) => (typeof v === 'string' ? renderWith(at(where, i), v, ctx.vars, ctx.whose) : v));
  return value;
}

function checkedValue(where: Where, type: AssertType, value: unknown, threshold: number | null): Json {
  switch (type) {
    case 'equals':
      if (value === undefined || value === null) throw refuse(where, 'equals needs a value to compare with');
      return json(where, value);
    case 'contains':
    case 'icontains':
    case 'starts-with':
      return text(where, type, value);
    case 'contains-any':
    case 'contains-all':
    case 'icontains-any':
    case 'icontains-all':
      return list(where, type, value);
    case 'regex': {
      const pattern = text(where, type, value);
      try {
        new RegExp(pattern);
      } catch (err) {
        throw refuse(where, `${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`);
      }
      return pattern;
    }
    case 'is-json':
    case 'contains-json':
      return schema(where, value);
    case 'javascript':
      compileJsCheck(where, text(where, type, value));
      return text(where, type, value).trimEnd();
    case 'similar':
    case 'levenshtein':
      if (threshold === null) throw refuse(where, `${type} has no threshold`);
      return text(where, type, value);
    case 'llm-rubric':
    case 'model-graded-closedqa':
    case 'factuality':
    case 'model-graded-factuality':
      return text(where, type, value);
    default: {
      const never: never = type;
      throw new Error(`unhandled assert type ${String(never)}`);
    }
  }
}

function text(where: Where, type: AssertType, value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '') throw refuse(where, `${type} needs a non-empty string value, got ${shown(value)}`);
  return value;
}

function list(where: Where, type: AssertType, value: unknown): string[] {
  // promptfoo reads a string as comma-separated values.
  const items = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : value;
  if (!Array.isArray(items) || items.length === 0) throw refuse(where, `${type} needs a list of strings (or one comma-separated string), got ${shown(value)}`);
  return items.map((v, i) => text(at(where, i), type, v));
}

// A schema is a mapping, or text holding one as YAML or JSON (promptfoo reads it as YAML); none = any JSON.
function schema(where: Where, value: unknown): Json {
  if (value === undefined || value === null || value === '') return null;
  let s = value;
  if (typeof value === 'string') {
    try {
      s = parseYaml(value);
    } catch (err) {
      throw refuse(where, `the JSON schema is not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!isRecord(s) && typeof s !== 'boolean') throw refuse(where, `must be a JSON schema (a mapping), got ${shown(value)}`);
  try {
    compileJsonSchema(s);
  } catch (err) {
    if (err instanceof JsonSchemaError) throw refuse(where, `the JSON schema: ${err.message}`);
    throw err;
  }
  return json(where, s);
}

function json(where: Where, v: unknown): Json {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw refuse(where, `${v} is not a JSON number`);
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => json(at(where, i), x));
  if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, json(at(where, k), x)]));
  throw refuse(where, `is not a JSON value, got ${shown(v)}`);
}

/** The JSON a test's var holds (vars are YAML, JSON or CSV values). */
export function jsonVar(where: Where, v: unknown): Json {
  return json(where, v);
}

// A spec checked once, when defineEval is called (as the suite file is imported): every field a run
// needs is settled here, so a mistake is one line naming the field, before any run folder exists.
import { preview } from '../../sandbox/json-equal.js';
import { equals, type AnyScorer } from '../../graders/index.js';
import type { SuiteConfigBase } from '../../harness/suite/types.js';
import { EVAL_BASE_DEFAULTS } from './config.js';
import { DATA_EXTENSIONS } from './data.js';
import { EvalSpecError, EvalTaskFunctionError } from './errors.js';
import type { EvalCase, EvalDefaults, EvalSpec } from './spec.js';

/** A spec with its defaults filled in and its fields checked. */
export interface CheckedSpec {
  name: string;
  description: string;
  data: readonly EvalCase[] | string | (() => Promise<readonly EvalCase[]>);
  prompts: Record<string, string>;
  system: string | null;
  models: readonly string[];
  scorers: readonly AnyScorer[];
  threshold: number | null;
  base: SuiteConfigBase;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;
const ARM = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_KEYS = ['repetitions', 'concurrency', 'seed', 'orderSeed', 'model', 'provider', 'worker', 'report'] as const;
const NESTED = new Set<string>(['model', 'provider', 'worker']);

/** Checks a spec (EvalSpecError naming the field) and fills in evalog's defaults. */
export function checkedSpec(spec: EvalSpec): CheckedSpec {
  if (spec === null || typeof spec !== 'object')
    throw new EvalSpecError(`defineEval: give a spec object ({ name, data, task, scorers }), got ${preview(spec, 60)}`);
  const { name } = spec;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new EvalSpecError(`defineEval: field name must be 1-64 letters, digits, "_" or "-" (it names run folders), got ${preview(name, 60)}`);
  const bad = (field: string, detail: string) => new EvalSpecError(`defineEval ${name}: field ${field}: ${detail}`);
  return {
    name,
    description: typeof spec.description === 'string' ? spec.description : `defineEval suite ${name}`,
    data: dataOf(spec.data, bad),
    prompts: promptsOf(spec, bad),
    system: optionalString(spec.system, 'system', bad),
    models: modelsOf(spec.models, bad),
    scorers: scorersOf(spec.scorers, bad),
    threshold: thresholdOf(spec.threshold, bad),
    base: baseOf(spec.defaults, bad),
  };
}

type Bad = (field: string, detail: string) => EvalSpecError;

function dataOf(data: unknown, bad: Bad): CheckedSpec['data'] {
  if (Array.isArray(data)) {
    if (data.length === 0) throw bad('data', 'the array has no cases');
    return data as readonly EvalCase[];
  }
  if (typeof data === 'function') return data as () => Promise<readonly EvalCase[]>;
  if (typeof data === 'string') {
    if (!DATA_EXTENSIONS.some((ext) => data.toLowerCase().endsWith(ext)))
      throw bad('data', `${data} is not a data file (give a ${DATA_EXTENSIONS.join(', ')} path)`);
    return data;
  }
  throw bad('data', `give an array of cases, a data file's path (relative to the suite file) or an async function, got ${preview(data, 60)}`);
}

function promptsOf(spec: EvalSpec, bad: Bad): Record<string, string> {
  const { task } = spec;
  if (typeof task === 'function') throw new EvalTaskFunctionError(spec.name);
  if (typeof task === 'string') {
    if (task.trim() === '') throw bad('task', 'the prompt template is empty');
    return { default: task };
  }
  if (task === null || typeof task !== 'object' || Array.isArray(task))
    throw bad('task', `give a prompt template ("{{input}}") or templates by arm name, got ${preview(task, 60)}`);
  const entries = Object.entries(task);
  if (entries.length === 0) throw bad('task', 'name at least one template');
  for (const [arm, t] of entries) {
    if (!ARM.test(arm)) throw bad(`task.${arm}`, 'arm names are 1-64 letters, digits, "_" or "-"');
    if (typeof t !== 'string' || t.trim() === '') throw bad(`task.${arm}`, 'must be a non-empty prompt template');
  }
  return Object.fromEntries(entries);
}

function optionalString(v: unknown, field: string, bad: Bad): string | null {
  if (v === undefined) return null;
  if (typeof v !== 'string') throw bad(field, `must be a string, got ${preview(v, 60)}`);
  return v;
}

function modelsOf(v: unknown, bad: Bad): readonly string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((m) => typeof m !== 'string' || m === '')) throw bad('models', `must be a list of model ids, got ${preview(v, 60)}`);
  return v as string[];
}

function scorersOf(v: unknown, bad: Bad): readonly AnyScorer[] {
  // No scorers: the output must equal the case's expected value.
  if (v === undefined) return [equals()];
  if (!Array.isArray(v) || v.length === 0) throw bad('scorers', 'give a non-empty list of scorers (equals(), contains(), …)');
  const names = new Set<string>();
  return v.map((s: unknown, i) => {
    const g = s as (Partial<AnyScorer> & { score?: unknown; grade?: unknown }) | null;
    if (
      g === null ||
      typeof g !== 'object' ||
      typeof g.name !== 'string' ||
      typeof g.problem !== 'function' ||
      (typeof g.score !== 'function' && typeof g.grade !== 'function')
    )
      throw bad(`scorers[${i}]`, `is not a scorer (use equals(), contains(), modelGraded(…), …), got ${preview(s, 60)}`);
    if (names.has(g.name)) throw bad(`scorers[${i}]`, `a second scorer is named ${g.name}: give one another name with named('…', scorer)`);
    names.add(g.name);
    return s as AnyScorer;
  });
}

function thresholdOf(v: unknown, bad: Bad): number | null {
  if (v === undefined) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) throw bad('threshold', `must be a number from 0 to 1, got ${preview(v, 60)}`);
  return v;
}

// Objects merge one level deep over evalog's defaults; a key evalog does not know is refused.
function baseOf(v: EvalDefaults | undefined, bad: Bad): SuiteConfigBase {
  if (v === undefined) return EVAL_BASE_DEFAULTS;
  if (v === null || typeof v !== 'object') throw bad('defaults', `must be an object, got ${preview(v, 60)}`);
  const out: Record<string, unknown> = { ...EVAL_BASE_DEFAULTS };
  for (const [k, val] of Object.entries(v)) {
    if (!(DEFAULT_KEYS as readonly string[]).includes(k)) throw bad(`defaults.${k}`, `is not a setting (settings: ${DEFAULT_KEYS.join(', ')})`);
    if (val === undefined) continue;
    out[k] = NESTED.has(k) && val !== null && typeof val === 'object' ? { ...(out[k] as object), ...val } : val;
  }
  // The values themselves are checked by the config's schema when a run is planned, naming the field.
  return out as SuiteConfigBase;
}

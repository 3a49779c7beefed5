// defineEval: the short form of a suite. A spec of data, a prompt template (or templates by arm)
// and scorers becomes a single-call suite: one recorded model call per case × arm × repetition,
// graded at once by the scorers, blind to the arm. Everything the spec leaves out is evalog's
// default. A data file is pinned in the config by its sha256, so resume and replay refuse an edited one.
import { resolve } from 'node:path';
import { isScorer, named, weighted, type AnyScorer, type JudgePort, type JudgeSample, type Verdict } from '../../graders/index.js';
import type { ChatMessage } from '../../providers/chat.js';
import {
  defineSuite,
  type CaseSpec,
  type CheckResult,
  type DefinedSuite,
  type GradeOutput,
  type SuiteCli,
  type SuiteDefinition,
} from '../../harness/suite/index.js';
import { missingVars, renderTemplate } from '../dataset/template.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import { EvalConfig, evalArms } from './config.js';
import { casesOfValues, dataFileSha256, readPinnedData, type LoadedCase } from './data.js';
import { EvalSpecError } from './errors.js';
import { evalRunFlags } from './flags.js';
import { checkedSpec, type CheckedSpec } from './check-spec.js';
import type { EvalSpec } from './spec.js';

/** A case as a job sees it: the input, its template variables and the expected value. */
export interface EvalCaseData {
  input: unknown;
  vars: Record<string, unknown>;
  expected: unknown;
}

/**
 * What defineEval returns: a suite, with its `--model` flag (`cli`) and `inFolder(folder)`, by which
 * the suite-file loader gives it the folder its data path is relative to (the process's cwd until then).
 */
export type EvalSuite = DefinedSuite & {
  readonly cli: SuiteCli;
  inFolder(folder: string): EvalSuite;
};

/** The check id of the combined score when the spec sets a threshold. */
export const SCORE_CHECK = 'score';

/** The short form: `defineEval({ name, data, task, scorers })`; a spec that cannot run throws EvalSpecError naming the field. */
export function defineEval(spec: EvalSpec): EvalSuite {
  return located(checkedSpec(spec), null);
}

function located(spec: CheckedSpec, folder: string | null): EvalSuite {
  const suite = defineSuite(evalDefinition(spec, folder ?? process.cwd()));
  return { ...suite, cli: { runFlags: evalRunFlags }, inFolder: (f: string) => located(spec, f) };
}

/** The suite's definition (typed hooks), for tests of the hooks themselves. */
export function evalDefinition(spec: CheckedSpec, folder: string): SuiteDefinition<EvalConfig, EvalCaseData, never> {
  // With a threshold the scorers are one weighted check (equal weights); without, each is a check of its own.
  const graders: readonly AnyScorer[] =
    spec.threshold === null
      ? spec.scorers
      : [
          named(
            SCORE_CHECK,
            weighted(
              spec.scorers.map((s) => [s, 1] as const),
              { threshold: spec.threshold },
            ),
          ),
        ];
  return {
    name: spec.name,
    description: spec.description,
    shape: 'single-call',
    configSchema: EvalConfig,
    // A getter: the data file is hashed when a run is planned, not when the suite file is imported.
    get defaults(): EvalConfig {
      const data = typeof spec.data === 'string' ? { path: spec.data, sha256: dataFileSha256(resolve(folder, spec.data), spec.data) } : null;
      const { base } = spec;
      return {
        ...base,
        provider: { ...base.provider, maxRetryAfterMs: base.provider.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS },
        data,
        prompts: spec.prompts,
        system: spec.system,
        models: [...spec.models],
        threshold: spec.threshold,
      };
    },
    prepare: async (config) => ({ cases: checkedCases(await loadCases(spec, config, folder), config, graders) }),
    arms: (config) => [...evalArms(config).keys()],
    jobMeta: (c) => (c.data.expected === undefined ? {} : { expected: c.data.expected }),
    call: {
      request(c, job, config) {
        const arm = evalArms(config).get(job.arm);
        if (!arm) throw new EvalSpecError(`${spec.name}: arm ${job.arm} is not in the config (arms: ${[...evalArms(config).keys()].join(', ')})`);
        const messages: ChatMessage[] = config.system === null ? [] : [{ role: 'system', content: renderTemplate(config.system, c.data.vars) }];
        messages.push({ role: 'user', content: renderTemplate(arm.template, c.data.vars) });
        return arm.model === null ? { messages, tools: [] } : { messages, tools: [], model: arm.model };
      },
    },
    async grade(c, work, judge): Promise<GradeOutput> {
      const output = work.answer ?? '';
      const checks: CheckResult[] = [];
      // One after another, in the spec's order: judge calls are numbered the same on every run and replay.
      for (const g of graders) {
        const v = await scoreOne(g, judge, c.data, output);
        checks.push({ checkId: g.name, visibility: 'hidden', passed: v.passed && v.error !== true, detail: v.detail });
      }
      return { checks, firstRevisionPassed: null };
    },
  };
}

function scoreOne(g: AnyScorer, judge: JudgePort, c: EvalCaseData, output: string): Verdict | Promise<Verdict> {
  if (isScorer(g)) return g.score(output, c.expected, { input: c.input });
  const sample: JudgeSample = { input: typeof c.input === 'string' ? c.input : JSON.stringify(c.input), expected: c.expected ?? null, output };
  return g.grade(judge, sample);
}

async function loadCases(spec: CheckedSpec, config: EvalConfig, folder: string): Promise<LoadedCase[]> {
  if (config.data !== null) return readPinnedData(resolve(folder, config.data.path), config.data.path, config.data.sha256);
  if (typeof spec.data === 'string') throw new EvalSpecError(`${spec.name}: config field data is null, but the suite reads ${spec.data}`);
  if (typeof spec.data === 'function') {
    let values: unknown;
    try {
      values = await spec.data();
    } catch (err) {
      throw new EvalSpecError(
        `${spec.name}: field data: the loader threw ${(err as Error)?.name ?? 'an error'}: ${String((err as Error)?.message ?? err).split('\n')[0]}`,
        { cause: err },
      );
    }
    return casesOfValues(values, 'field data (the loader\u2019s cases)');
  }
  return casesOfValues(spec.data, 'field data');
}

/** Each case with its template variables, checked against every template and scorer before any job runs. */
function checkedCases(cases: readonly LoadedCase[], config: EvalConfig, graders: readonly AnyScorer[]): CaseSpec<EvalCaseData>[] {
  const templates: [string, string][] = Object.entries(config.prompts)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, t]) => [`prompt ${name}`, t]);
  if (config.system !== null) templates.push(['the system prompt', config.system]);
  return cases.map((c) => {
    const vars = varsOf(c.input);
    for (const [what, t] of templates) {
      const missing = missingVars(t, vars);
      if (missing.length > 0)
        throw new EvalSpecError(`${c.where}: case ${c.id}: ${what} uses ${missing.map((v) => `{{${v}}}`).join(', ')}, which this case does not have`);
    }
    for (const g of graders) {
      const problem = g.problem(c.expected);
      if (problem !== null) throw new EvalSpecError(`${c.where}: case ${c.id}: scorer ${g.name}: ${problem}`);
    }
    return { id: c.id, data: { input: c.input, vars, expected: c.expected } };
  });
}

// A string input is {{input}}; a record's fields are variables, and {{input}} is the whole record (as JSON) unless it has its own.
function varsOf(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return { input, ...(input as Record<string, unknown>) };
  return { input };
}

import { z } from 'zod';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import type { SuiteConfigBase } from '../../harness/suite/types.js';
import { parseGrader } from './graders.js';

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in lowercase hex');
const VARIANT = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_ARM = 90;

/** The dataset suite's config; `data` pins the case file by absolute path and content hash. */
export const DatasetConfig = z
  .object({
    ...baseConfigShape,
    data: z
      .object({
        path: z.string().min(1).describe('Absolute path of the JSONL case file'),
        sha256: Sha256.describe('sha256 of the case file when the run was planned; a changed file is refused'),
      })
      .strict()
      .nullable()
      .describe('The case file; null only before a run names one'),
    // A string or a list replaces whatever the defaults or a config file held (config files merge objects one level deep).
    prompts: z
      .union([
        z.string().min(1),
        z.array(z.string().min(1)).min(1),
        z
          .record(z.string().regex(VARIANT, 'variant names use letters, digits, "_" and "-"'), z.string().min(1))
          .refine((p) => Object.keys(p).length > 0, 'at least one prompt template'),
      ])
      .describe(
        'Prompt template ({{input}}, {{var}}): one (variant "default"), a list (variants p1, p2, …) or templates by variant name; each variant is an arm',
      ),
    system: z.string().nullable().describe('System message sent before every case, null for none'),
    models: z.array(z.string().min(1)).describe("Model ids, each an arm; empty = the endpoint's model"),
    grader: z.string().describe('Grader of the cases that name none (exact, contains, regex, json-field:PATH, deterministic-overlap-v1, model)'),
    // Optional, and absent unless a run uses the judge, so configs (and config hashes) of runs without one are unchanged.
    rubric: z
      .object({
        path: z.string().min(1).describe('Absolute path of the rubric file (Markdown or text)'),
        sha256: Sha256.describe('sha256 of the rubric file when the run was planned; a changed file is refused'),
      })
      .strict()
      .optional()
      .describe('The rubric of the model grader (`--grader model:RUBRIC.md`)'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const g = parseGrader(c.grader);
    if (typeof g === 'string') ctx.addIssue({ code: 'custom', path: ['grader'], message: g });
    else if (g.kind === 'model' && c.rubric === undefined)
      ctx.addIssue({ code: 'custom', path: ['rubric'], message: 'grader model needs a rubric file: --grader model:RUBRIC.md' });
    const labels = c.models.map(modelLabel);
    const clash = labels.find((l, i) => labels.indexOf(l) !== i);
    if (clash !== undefined) ctx.addIssue({ code: 'custom', path: ['models'], message: `two models share the arm name ${clash}` });
    const names = armEntries(c as DatasetConfig).map(([name]) => name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (clash === undefined && twice !== undefined) ctx.addIssue({ code: 'custom', path: ['prompts'], message: `two arms share the name ${twice}` });
    // Job ids (`case:arm:repetition`) hold at most 200 characters; case ids at most 100.
    const long = names.find((n) => n.length > MAX_ARM);
    if (long !== undefined) ctx.addIssue({ code: 'custom', path: ['models'], message: `arm name ${long} is longer than ${MAX_ARM} characters` });
  });
/** The validated config. */
export type DatasetConfig = z.infer<typeof DatasetConfig> & SuiteConfigBase;

/** Defaults: one template that is the input itself, exact match, the endpoint's model. */
export const DATASET_DEFAULTS: DatasetConfig = {
  repetitions: 1,
  concurrency: 8,
  seed: 1,
  orderSeed: 1,
  cases: null,
  model: { temperature: 0, maxTokens: 512 },
  worker: { turnCap: 1, timeLimitMs: 60_000 },
  provider: { timeoutMs: 60_000, maxAttempts: 3, backoffMs: 500, maxBackoffMs: 8_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
  data: null,
  prompts: '{{input}}',
  system: null,
  models: [],
  grader: 'exact',
};

/** What one arm sends: a model id (null = the endpoint's), a prompt variant and its template. */
export interface ArmSpec {
  model: string | null;
  variant: string;
  template: string;
}

const tables = new WeakMap<object, ReadonlyMap<string, ArmSpec>>();

/**
 * Arms by name, in config order. A name says only what varies: the variant, the model (made
 * id-safe: `gpt-4.1` is `gpt-4-1`), or `model__variant` when both vary; one model and one
 * variant make one arm named after the model (or the variant when no model is named).
 */
export function armTable(config: DatasetConfig): ReadonlyMap<string, ArmSpec> {
  let table = tables.get(config);
  if (!table) {
    table = new Map(armEntries(config));
    tables.set(config, table);
  }
  return table;
}

/** Prompt templates by variant name. */
export function promptVariants(prompts: DatasetConfig['prompts']): Record<string, string> {
  if (typeof prompts === 'string') return { default: prompts };
  if (Array.isArray(prompts)) return Object.fromEntries(prompts.map((p, i) => [`p${i + 1}`, p]));
  return prompts;
}

function armEntries(config: DatasetConfig): [string, ArmSpec][] {
  const variants = Object.keys(promptVariants(config.prompts)).sort();
  const models = config.models.length > 0 ? config.models : [null];
  const byModel = config.models.length > 1 || (config.models.length === 1 && variants.length === 1);
  const templates = promptVariants(config.prompts);
  const out: [string, ArmSpec][] = [];
  for (const model of models) {
    for (const variant of variants) {
      const label = model === null ? null : modelLabel(model);
      const name = label !== null && byModel ? (variants.length > 1 ? `${label}__${variant}` : label) : variant;
      out.push([name, { model, variant, template: templates[variant]! }]);
    }
  }
  return out;
}

/** A model id as an arm name: job ids allow letters, digits, "_" and "-" only. */
export function modelLabel(model: string): string {
  return model.replace(/[^A-Za-z0-9_-]+/g, '-');
}

// The short form's config, as the log records it: evalog's base settings, the data file's pin, the
// prompt templates by variant, the system message, the models and the pass threshold. The spec gives
// the defaults; `--model` and a config file may override them like any suite's.
import { z } from 'zod';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import type { SuiteConfigBase } from '../../harness/suite/types.js';

const VARIANT = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_ARM = 90;

/** The config of a defineEval suite. */
export const EvalConfig = z
  .object({
    ...baseConfigShape,
    data: z
      .object({
        path: z.string().min(1).describe("The data file's path as the suite file gives it (relative to the suite file's folder)"),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, 'a sha256 in lowercase hex')
          .describe('sha256 of the data file when the run was planned; a changed file is refused'),
      })
      .strict()
      .nullable()
      .describe('The data file; null when the cases are written in the suite file or returned by its loader'),
    prompts: z
      .record(z.string().regex(VARIANT, 'template arm names use letters, digits, "_" and "-"'), z.string().min(1))
      .refine((p) => Object.keys(p).length > 0, 'at least one prompt template')
      .describe('Prompt templates ({{input}}, {{var}}) by variant name; each variant is an arm'),
    system: z.string().nullable().describe('System message sent before every case (templates allowed), null for none'),
    models: z.array(z.string().min(1)).describe("Model ids, each an arm; empty = the endpoint's model"),
    threshold: z.number().min(0).max(1).nullable().describe("Pass when the scorers' mean score is at least this; null = every scorer passes"),
  })
  .strict()
  .superRefine((c, ctx) => {
    const names = armEntries(c).map(([name]) => name);
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice !== undefined) ctx.addIssue({ code: 'custom', path: ['models'], message: `two arms share the name ${twice}` });
    const long = names.find((n) => n.length > MAX_ARM);
    if (long !== undefined) ctx.addIssue({ code: 'custom', path: ['models'], message: `arm name ${long} is longer than ${MAX_ARM} characters` });
  });
/** The validated config. */
export type EvalConfig = z.infer<typeof EvalConfig> & SuiteConfigBase;

/** evalog's defaults for every setting a spec leaves out (those of the dataset suite). */
export const EVAL_BASE_DEFAULTS: SuiteConfigBase = {
  repetitions: 1,
  concurrency: 8,
  seed: 1,
  orderSeed: 1,
  cases: null,
  model: { temperature: 0, maxTokens: 512 },
  worker: { turnCap: 1, timeLimitMs: 60_000 },
  provider: { timeoutMs: 60_000, maxAttempts: 3, backoffMs: 500, maxBackoffMs: 8_000, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
};

/** What one arm sends: a model id (null = the endpoint's) and its template. */
export interface EvalArm {
  model: string | null;
  template: string;
}

/**
 * Arms by name, in a fixed order, named as the dataset suite names them: what varies only — the
 * template's name, the model (id-safe: `gpt-4.1` is `gpt-4-1`), or `model__template` when both do.
 */
export function evalArms(config: Pick<EvalConfig, 'prompts' | 'models'>): ReadonlyMap<string, EvalArm> {
  return new Map(armEntries(config));
}

function armEntries(config: Pick<EvalConfig, 'prompts' | 'models'>): [string, EvalArm][] {
  const variants = Object.keys(config.prompts).sort();
  const models = config.models.length > 0 ? config.models : [null];
  const byModel = config.models.length > 1 || (config.models.length === 1 && variants.length === 1);
  const out: [string, EvalArm][] = [];
  for (const model of models) {
    for (const variant of variants) {
      const label = model === null ? null : modelLabel(model);
      const name = label !== null && byModel ? (variants.length > 1 ? `${label}__${variant}` : label) : variant;
      out.push([name, { model, template: config.prompts[variant]! }]);
    }
  }
  return out;
}

/** A model id as an arm name: job ids allow letters, digits, "_" and "-" only. */
export function modelLabel(model: string): string {
  return model.replace(/[^A-Za-z0-9_-]+/g, '-');
}

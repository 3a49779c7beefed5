// The flags everyone tunes on `evalog run`: sampling (model.*) and the call policy (provider.*).
// Each overrides its config key alone (the file's other keys stay) and is range-checked here, so
// a bad value is a one-line message naming the flag before anything is written.
import type { ConfigOverrides } from '../harness/orchestration/config.js';
import type { SuiteConfigBase } from '../harness/suite/index.js';
import { intFlag } from './args.js';
import { InputError } from './io.js';

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high'] as const;
/** Longest `--timeout`: a day; a call waited on longer is a hung call. */
const MAX_TIMEOUT_MS = 86_400_000;

/** The parser's declarations. */
export const SAMPLING_OPTIONS = {
  temperature: { type: 'string' },
  'max-tokens': { type: 'string' },
  timeout: { type: 'string' },
  'max-attempts': { type: 'string' },
  'reasoning-effort': { type: 'string' },
} as const;

/** Help lines (in `evalog run --help`). */
export const SAMPLING_HELP = `  --temperature X       sampling temperature, 0 to 2 (config model.temperature)
  --max-tokens N        most tokens a reply may have (config model.maxTokens)
  --reasoning-effort E  none, minimal, low, medium or high, sent as reasoning_effort (config
                        model.reasoningEffort)
  --timeout T           per-attempt timeout: 30s, 1.5s, 2m, 500ms, or milliseconds alone
                        (config provider.timeoutMs)
  --max-attempts N      attempts per model call, the first included, 1 to 20 (config
                        provider.maxAttempts)`;

type SamplingValues = { temperature?: string; 'max-tokens'?: string; timeout?: string; 'max-attempts'?: string; 'reasoning-effort'?: string };

/**
 * Config overrides from the flags; only the keys given are set. A suite that fixes these itself
 * (`fixedSampling`: why) refuses them by name, so a flag is never silently without effect.
 */
export function samplingOverrides(
  values: SamplingValues,
  suite?: { name: string; fixedSampling?: string | undefined },
): Pick<ConfigOverrides, 'model' | 'provider'> {
  const given = (Object.keys(SAMPLING_OPTIONS) as (keyof SamplingValues)[]).find((f) => values[f] !== undefined);
  if (given !== undefined && suite?.fixedSampling !== undefined)
    throw new InputError(`evalog run: --${given} does not apply to suite ${suite.name}: ${suite.fixedSampling}`);
  const model: Partial<SuiteConfigBase['model']> = {};
  const provider: Partial<SuiteConfigBase['provider']> = {};
  if (values.temperature !== undefined) model.temperature = temperatureFlag(values.temperature);
  if (values['max-tokens'] !== undefined) model.maxTokens = intFlag('run', 'max-tokens', values['max-tokens'], 1, 1, 1_000_000);
  if (values['reasoning-effort'] !== undefined) model.reasoningEffort = effortFlag(values['reasoning-effort']);
  if (values.timeout !== undefined) provider.timeoutMs = durationMs('timeout', values.timeout);
  if (values['max-attempts'] !== undefined) provider.maxAttempts = intFlag('run', 'max-attempts', values['max-attempts'], 1, 1, 20);
  return { ...(Object.keys(model).length > 0 ? { model } : {}), ...(Object.keys(provider).length > 0 ? { provider } : {}) };
}

function temperatureFlag(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value.trim())) throw new InputError(`evalog run: --temperature must be a number from 0 to 2, got ${JSON.stringify(value)}`);
  const t = Number(value);
  if (t > 2) throw new InputError(`evalog run: --temperature must be a number from 0 to 2, got ${t}`);
  return t;
}

function effortFlag(value: string): (typeof EFFORTS)[number] {
  const effort = EFFORTS.find((e) => e === value);
  if (!effort) throw new InputError(`evalog run: --reasoning-effort must be one of ${EFFORTS.join(', ')}, got ${JSON.stringify(value)}`);
  return effort;
}

/** A duration flag in milliseconds: `500ms`, `30s`, `1.5s`, `2m`, or a bare number of milliseconds. */
export function durationMs(flag: string, value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const bad = (why: string) => new InputError(`evalog run: --${flag} ${why} (e.g. 30s, 1.5s, 2m, 500ms, or milliseconds alone), got ${JSON.stringify(value)}`);
  if (!m) throw bad('must be a duration');
  const ms = Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'm' ? 60_000 : 1));
  if (ms < 1 || ms > MAX_TIMEOUT_MS) throw bad('must be from 1ms to 24 hours');
  return ms;
}

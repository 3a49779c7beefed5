// config.json, checked with the rules the published runner applies before it runs anything: the
// exact key set, positive integers, integer seeds, a finite temperature in 0..2, a known
// reasoning effort or null, and no provider retries. Checked here in TS, not by running any of the
// user's Python. Where JSON in JS cannot tell what Python's json can, the difference is noted.
import { ProtocolConfigError } from './errors.js';
import type { ProtocolConfig } from './types.js';

/** The exact key set, in the published file's order (for messages). */
export const CONFIG_KEYS = [
  'protocol',
  'temperature',
  'reasoning_effort',
  'max_tokens',
  'context_window',
  'http_timeout_seconds',
  'worker_timeout_seconds',
  'max_graph_steps',
  'max_retries',
  'seed',
  'order_seed',
  'concurrency',
] as const;

const POSITIVE_INTS = ['max_tokens', 'context_window', 'http_timeout_seconds', 'worker_timeout_seconds', 'max_graph_steps', 'concurrency'] as const;
const INTS = ['seed', 'order_seed'] as const;

/** The reasoning efforts the published runner accepts (null: the provider's default). */
export const REASONING_EFFORTS = [null, 'none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

// JSON.parse reads 5.0 as 5, which Python's json keeps a float and the runner refuses as an int; the
// numbers here are integers by value. Safe integers only, so a seed is what the user wrote.
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** Validates config.json's text; `file` (its path) is named in every error. */
export function parseProtocolConfig(text: string, file: string): ProtocolConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ProtocolConfigError(file, '(file)', `not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtocolConfigError(file, '(file)', 'not a JSON object');
  const config = value as Record<string, unknown>;
  const known = new Set<string>(CONFIG_KEYS);
  const unknown = Object.keys(config).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new ProtocolConfigError(file, unknown.join(', '), `unknown key (the keys are exactly ${CONFIG_KEYS.join(', ')})`);
  const missing = CONFIG_KEYS.filter((k) => !Object.hasOwn(config, k));
  if (missing.length > 0) throw new ProtocolConfigError(file, missing.join(', '), 'missing');

  // The runner does not check `protocol`; evalog names the protocol by it, so it must be a name.
  if (typeof config.protocol !== 'string' || config.protocol.trim() === '') throw new ProtocolConfigError(file, 'protocol', 'must be a non-empty string');
  for (const key of POSITIVE_INTS) {
    if (!isInt(config[key]) || config[key] < 1) throw new ProtocolConfigError(file, key, `must be a positive integer, got ${JSON.stringify(config[key])}`);
  }
  for (const key of INTS) {
    if (!isInt(config[key])) throw new ProtocolConfigError(file, key, `must be an integer, got ${JSON.stringify(config[key])}`);
  }
  // Python would take `true` as 1 here; a boolean temperature is a mistake, so it is refused.
  const t = config.temperature;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > 2)
    throw new ProtocolConfigError(file, 'temperature', `must be a finite number from 0 to 2, got ${JSON.stringify(t)}`);
  if (!(REASONING_EFFORTS as readonly unknown[]).includes(config.reasoning_effort)) {
    throw new ProtocolConfigError(
      file,
      'reasoning_effort',
      `must be null or one of ${REASONING_EFFORTS.slice(1).join(', ')}, got ${JSON.stringify(config.reasoning_effort)}`,
    );
  }
  if (config.max_retries !== 0)
    throw new ProtocolConfigError(file, 'max_retries', `must be 0 (the protocol does not retry provider calls), got ${JSON.stringify(config.max_retries)}`);
  return {
    protocol: config.protocol,
    temperature: t,
    reasoning_effort: config.reasoning_effort as string | null,
    max_tokens: config.max_tokens as number,
    context_window: config.context_window as number,
    http_timeout_seconds: config.http_timeout_seconds as number,
    worker_timeout_seconds: config.worker_timeout_seconds as number,
    max_graph_steps: config.max_graph_steps as number,
    max_retries: 0,
    seed: config.seed as number,
    order_seed: config.order_seed as number,
    concurrency: config.concurrency as number,
  };
}

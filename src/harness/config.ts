import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import type { Suite, SuiteConfigBase } from './suite/types.js';
import { UserError } from '../core/errors.js';

/** A config (file or flags) that does not validate; the message names the field and the file. */
export class ConfigError extends UserError {
  override name = 'ConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Partial overrides from command-line flags. */
export type ConfigOverrides = Partial<Pick<SuiteConfigBase, 'repetitions' | 'concurrency' | 'seed' | 'cases'>>;

/**
 * The effective config: suite defaults, then the config file (JSON, merged per top-level key),
 * then flags; validated as a whole, unknown keys rejected.
 */
export function resolveConfig(suite: Suite<SuiteConfigBase, unknown>, file: string | undefined, overrides: ConfigOverrides): SuiteConfigBase {
  let fromFile: Record<string, unknown> = {};
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
    try {
      fromFile = JSON.parse(text) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
    if (fromFile === null || typeof fromFile !== 'object' || Array.isArray(fromFile)) throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  const merged = mergeTop(mergeTop(suite.defaults as unknown as Record<string, unknown>, fromFile), overrides as Record<string, unknown>);
  const result = (suite.configSchema as z.ZodType<SuiteConfigBase>).safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    // An unknown key is named with its full path (`worker.turnLimit`), not just its parent's.
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    const field = keys.map((k) => [...issue.path, k].filter((p) => p !== '').join('.') || '(root)').join(', ');
    const where = file ? `config file ${file}` : 'config';
    throw new ConfigError(`${where}: field ${field}: ${issue.message}`, { cause: result.error });
  }
  const config = result.data;
  if (config.cases) {
    const known = new Set(suite.cases(config).map((c) => c.id));
    const unknown = config.cases.filter((c) => !known.has(c));
    if (unknown.length > 0) throw new ConfigError(`unknown case ${unknown.map((u) => JSON.stringify(u)).join(', ')} (field cases); known: ${[...known].sort().join(', ')}`);
  }
  return config;
}

// Nested objects merge one level deep so a file can set `worker.turnCap` alone.
function mergeTop(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    const b = base[k];
    out[k] = isPlain(b) && isPlain(v) ? { ...b, ...v } : v;
  }
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

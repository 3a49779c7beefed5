import { dirname, resolve } from 'node:path';
import type { SuiteConfigBase } from '../suite/types.js';
import { ConfigSchemaError, type ConfiguredSuite, type DefinedSuite, type PreparedSuite } from '../suite/define.js';
import { UserError } from '../../core/errors.js';
import { ConfigFileError, readConfigFileLines, type ConfigFileText } from './config-file.js';
import { type CaseSelection, isCaseGlob, selectCases } from '../suite/case-selection.js';

/** A config (file or flags) that does not validate; the message names the field and the file. */
export class ConfigError extends UserError {
  override name = 'ConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Partial overrides from command-line flags; `model`, `provider` and `caseSelection` merge into the file's key by key. */
export type ConfigOverrides = Partial<Pick<SuiteConfigBase, 'repetitions' | 'concurrency' | 'seed' | 'cases' | 'agent' | 'agents'>> & {
  model?: Partial<SuiteConfigBase['model']>;
  provider?: Partial<SuiteConfigBase['provider']>;
  caseSelection?: CaseSelection;
};

/**
 * The effective config: suite defaults, then the config file (YAML or JSON, merged per top-level key),
 * then flags; validated as a whole, unknown keys rejected. The suite comes back prepared for it
 * (its cases loaded), with the config's case subset checked against them.
 */
export async function resolveConfig(suite: DefinedSuite, file: string | undefined, overrides: ConfigOverrides): Promise<PreparedSuite> {
  let fromFile: Record<string, unknown> = {};
  let read: ConfigFileText | null = null;
  if (file !== undefined) {
    try {
      read = readConfigFileLines(file);
    } catch (err) {
      throw err instanceof ConfigFileError ? new ConfigError(err.message, { cause: err }) : err;
    }
    fromFile = read.data;
  }
  const source = file === undefined || read === null ? null : { file, lineOf: read.lineOf };
  // Agents from flags replace the file's (either form): a run has one set of agents.
  if (overrides.agent || overrides.agents) {
    const { agent: _a, agents: _as, ...rest } = fromFile;
    fromFile = rest;
  }
  fromFile = withAgentFolders(fromFile, file === undefined ? process.cwd() : dirname(file));
  const merged = mergeTop(mergeTop(suite.defaults(), fromFile), overrides);
  const prepared = await configureAndPrepare(suite, merged, source);
  const { config } = prepared;
  if (config.cases) {
    const known = new Set(prepared.cases.map((c) => c.id));
    const unknown = config.cases.filter((c) => !isCaseGlob(c) && !known.has(c));
    if (unknown.length > 0)
      throw new ConfigError(`unknown case ${unknown.map((u) => JSON.stringify(u)).join(', ')} (field cases); known: ${[...known].sort().join(', ')}`);
  }
  const selection = config.caseSelection;
  const chooses = selection?.sample !== undefined || selection?.limit !== undefined || (config.cases ?? []).some(isCaseGlob);
  if (!chooses) return prepared;
  // The chosen ids become `cases` (resume and replay take them as they are); how they were chosen is recorded beside.
  const all = prepared.cases.map((c) => c.id);
  const cases = selectCases(all, config.cases, selection ?? {}, config.seed);
  const record: CaseSelection = { ...(config.cases ? { patterns: config.cases } : {}), ...pick(selection) };
  return configureAndPrepare(suite, { ...merged, cases, caseSelection: record }, source);
}

/** The selection's own keys, without a `patterns` record that a reused run config may carry. */
function pick(s: CaseSelection | undefined): CaseSelection {
  return { ...(s?.sample !== undefined ? { sample: s.sample } : {}), ...(s?.limit !== undefined ? { limit: s.limit } : {}) };
}

/** Validates a merged config with the suite's schema (errors name the field and the file) and loads its cases. */
async function configureAndPrepare(
  suite: DefinedSuite,
  merged: Record<string, unknown>,
  source: { file: string; lineOf: ConfigFileText['lineOf'] } | null,
): Promise<PreparedSuite> {
  let configured: ConfiguredSuite;
  try {
    configured = suite.configure(merged);
  } catch (err) {
    if (!(err instanceof ConfigSchemaError)) throw err;
    const issue = err.issues[0]!;
    // An unknown key is named with its full path (`worker.turnLimit`), not just its parent's.
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    const field = keys.map((k) => [...issue.path, k].filter((p) => p !== '').join('.') || '(root)').join(', ');
    // The line of the key in the file, when the file sets it (a flag or a default may be what is wrong).
    const at = (issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path).filter((k): k is string | number => typeof k !== 'symbol');
    const line = source?.lineOf(at) ?? null;
    const where = source ? `config file ${source.file}` : 'config';
    throw new ConfigError(`${where}: field ${field}${line === null ? '' : ` (line ${line})`}: ${issue.message}`, { cause: err });
  }
  return configured.prepare();
}

/**
 * A config file's agents with their folder resolved (relative to the file; the folder evalog runs
 * in when absent) and their pass-through list spelt out, as the run records them.
 */
function withAgentFolders(data: Record<string, unknown>, base: string): Record<string, unknown> {
  const fill = (a: unknown): unknown =>
    isPlain(a) ? { ...a, cwd: typeof a.cwd === 'string' ? resolve(base, a.cwd) : a.cwd === undefined ? process.cwd() : a.cwd, env: a.env ?? [] } : a;
  const out = { ...data };
  if (data.agent !== undefined) out.agent = fill(data.agent);
  if (isPlain(data.agents)) out.agents = Object.fromEntries(Object.entries(data.agents).map(([k, v]) => [k, fill(v)]));
  return out;
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

/**
 * Loads and validates the memory-eviction protocol: the config, both manifests and the answer
 * prompt (spec A1, A2, and the CLI's cross-file checks). Everything returned is frozen.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { MemoryEvictionConfig } from './config.js';
import { formatPath, ProtocolValidationError, type ProtocolIssue } from './errors.js';
import { forbiddenKeyPaths, OfficialManifest, SyntheticManifest } from './manifests.js';
import { checkPromptTemplate } from './prompt.js';

/** The versioned protocol directory, `manifests/memory-eviction/`. */
export const PROTOCOL_DIR = new URL('../../../manifests/memory-eviction/', import.meta.url);
export const CONFIG_FILE = 'config.v1.json';
export const OFFICIAL_MANIFEST_FILE = 'official.v1.json';
export const SYNTHETIC_MANIFEST_FILE = 'synthetic.v1.json';

/** sha256 of the protocol files' bytes, as recorded in run markers. */
export interface ProtocolArtifacts {
  config_sha256: string;
  official_manifest_sha256: string;
  synthetic_manifest_sha256: string;
  answer_prompt_sha256: string;
}

/** Absolute paths of the files the protocol was loaded from. */
export interface ProtocolFiles {
  config: string;
  official: string;
  synthetic: string;
  answerPrompt: string;
}

export interface Protocol {
  config: MemoryEvictionConfig;
  official: OfficialManifest;
  synthetic: SyntheticManifest;
  /** The answer prompt file's text (UTF-8). */
  answerPrompt: string;
  /** `config.evaluation_time`, converted to UTC. */
  evaluationTime: Date;
  artifacts: ProtocolArtifacts;
  files: ProtocolFiles;
}

export interface LoadProtocolOptions {
  /** Config file to use instead of `<dir>/config.v1.json` (tests pin their synthetic dataset's hash this way). */
  configPath?: string | URL;
  /** Official manifest instead of `<dir>/official.v1.json`. */
  officialPath?: string | URL;
  /** Synthetic manifest instead of `<dir>/synthetic.v1.json`. */
  syntheticPath?: string | URL;
}

/**
 * Loads the protocol from `dir` (default `manifests/memory-eviction/`). The answer prompt path in
 * the config is resolved against `dir`. Throws `ProtocolValidationError` naming the file and field.
 */
export function loadProtocol(dir: URL = PROTOCOL_DIR, options: LoadProtocolOptions = {}): Protocol {
  const base = dir.href.endsWith('/') ? dir : new URL(`${dir.href}/`);
  const configFile = toPath(options.configPath ?? new URL(CONFIG_FILE, base));
  const officialFile = toPath(options.officialPath ?? new URL(OFFICIAL_MANIFEST_FILE, base));
  const syntheticFile = toPath(options.syntheticPath ?? new URL(SYNTHETIC_MANIFEST_FILE, base));

  const configBytes = readBytes(configFile);
  const config = validateConfig(parseJsonFile(configFile, configBytes), configFile);
  const officialBytes = readBytes(officialFile);
  const official = validateOfficialManifest(parseJsonFile(officialFile, officialBytes), officialFile);
  const syntheticBytes = readBytes(syntheticFile);
  const synthetic = validateSyntheticManifest(parseJsonFile(syntheticFile, syntheticBytes), syntheticFile);

  // Cross-file rules (the CLI's validate-contracts).
  if (official.protocol_id !== config.protocol_id)
    throw new ProtocolValidationError(officialFile, [
      { path: 'protocol_id', message: `${JSON.stringify(official.protocol_id)} differs from the config's ${JSON.stringify(config.protocol_id)}` },
    ]);
  if (synthetic.protocol_id !== config.protocol_id)
    throw new ProtocolValidationError(syntheticFile, [
      { path: 'protocol_id', message: `${JSON.stringify(synthetic.protocol_id)} differs from the config's ${JSON.stringify(config.protocol_id)}` },
    ]);
  const maxRank = config.pool.distractors + 1;
  const badRank = official.loss_ranks.findIndex((r) => r > maxRank);
  if (badRank >= 0) throw new ProtocolValidationError(officialFile, [{ path: `loss_ranks[${badRank}]`, message: `must be <= distractors + 1 (${maxRank})` }]);
  const badCase = synthetic.cases.findIndex((c) => c.loss_rank > maxRank);
  if (badCase >= 0)
    throw new ProtocolValidationError(syntheticFile, [{ path: `cases[${badCase}].loss_rank`, message: `must be <= distractors + 1 (${maxRank})` }]);

  const promptFile = fileURLToPath(new URL(config.qa.answer_prompt.path, base));
  const promptBytes = readBytes(promptFile);
  const promptSha = sha256Hex(promptBytes);
  if (promptSha !== config.qa.answer_prompt.sha256)
    throw new ProtocolValidationError(configFile, [
      { path: 'qa.answer_prompt.sha256', message: `pins ${config.qa.answer_prompt.sha256} but ${promptFile} has sha256 ${promptSha}` },
    ]);
  let answerPrompt: string;
  try {
    answerPrompt = new TextDecoder('utf-8', { fatal: true }).decode(promptBytes);
  } catch {
    throw new ProtocolValidationError(promptFile, [{ path: '(text)', message: 'is not valid UTF-8' }]);
  }
  const promptProblem = checkPromptTemplate(answerPrompt);
  if (promptProblem !== null) throw new ProtocolValidationError(promptFile, [{ path: '(text)', message: promptProblem }]);

  return deepFreeze({
    config,
    official,
    synthetic,
    answerPrompt,
    evaluationTime: new Date(Date.parse(config.evaluation_time)),
    artifacts: {
      config_sha256: sha256Hex(configBytes),
      official_manifest_sha256: sha256Hex(officialBytes),
      synthetic_manifest_sha256: sha256Hex(syntheticBytes),
      answer_prompt_sha256: promptSha,
    },
    files: { config: configFile, official: officialFile, synthetic: syntheticFile, answerPrompt: promptFile },
  });
}

/** Validates a parsed config document; `file` is named in the error. */
export function validateConfig(value: unknown, file: string): MemoryEvictionConfig {
  return check(MemoryEvictionConfig, value, file);
}

/** Validates a parsed official manifest; dataset-text keys are refused before the schema runs. */
export function validateOfficialManifest(value: unknown, file: string): OfficialManifest {
  const forbidden = forbiddenKeyPaths(value);
  if (forbidden.length > 0)
    throw new ProtocolValidationError(
      file,
      forbidden.map((p) => ({ path: formatPath(p), message: 'dataset text keys (question, answer, content, haystack) are not allowed in a manifest' })),
    );
  return check(OfficialManifest, value, file);
}

/** Validates a parsed synthetic manifest. */
export function validateSyntheticManifest(value: unknown, file: string): SyntheticManifest {
  return check(SyntheticManifest, value, file);
}

/** The 40 official case ids, scenario by scenario in `scenario_order`. */
export function officialCaseIds(protocol: Pick<Protocol, 'official'>): string[] {
  return protocol.official.scenario_order.flatMap((s) => protocol.official.scenarios[s]);
}

/** sha256 hex of bytes or a UTF-8 string. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function check<T extends z.ZodType>(schema: T, value: unknown, file: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProtocolValidationError(file, result.error.issues.map(toIssue));
}

function toIssue(issue: z.core.$ZodIssue): ProtocolIssue {
  if (issue.code === 'unrecognized_keys')
    return {
      path: formatPath([...issue.path, ...(issue.keys.length === 1 ? issue.keys : [])]),
      message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`,
    };
  return { path: formatPath(issue.path), message: issue.message };
}

function toPath(p: string | URL): string {
  return typeof p === 'string' ? p : fileURLToPath(p);
}

function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ProtocolValidationError(file, [{ path: '(file)', message: `cannot be read: ${(err as Error).message}` }]);
  }
}

function parseJsonFile(file: string, bytes: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new ProtocolValidationError(file, [{ path: '(root)', message: `is not valid JSON: ${(err as Error).message}` }]);
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof Date)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

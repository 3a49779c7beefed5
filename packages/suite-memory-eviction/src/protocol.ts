/**
 * Loads and validates the memory-eviction protocol: the config, both manifests and the answer
 * prompt (spec A1, A2, and the CLI's cross-file checks), from evalog's bundled layout (this file)
 * or from upstream's `deermem_eviction/` layout (protocol-dir.ts). Everything returned is frozen.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { MemoryEvictionConfig, PUBLISHED_PROTOCOL_ID } from './config.js';
import { formatPath, type ProtocolIssue, ProtocolValidationError } from './errors.js';
import { forbiddenKeyPaths, OfficialManifest, SyntheticManifest } from './manifests.js';
import { checkPromptTemplate } from './prompt.js';

/** The folder of evalog's own offline variant: this package's `manifests/`. */
export const PROTOCOL_DIR = new URL('../manifests/', import.meta.url);

/** The bundled protocol as every step suite's manifests: hashed into run.json under `memory-eviction/`. */
export const PROTOCOL_MANIFESTS = { folder: PROTOCOL_DIR, key: 'memory-eviction' } as const;
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

/** The two folder layouts: evalog's own bundled variant, and upstream's `deermem_eviction/`. */
export type ProtocolLayout = 'bundled' | 'upstream';

/** One protocol file as recorded: its path (relative to the folder when inside it) and the sha256 of its bytes. */
export interface ProtocolFileRecord {
  path: string;
  sha256: string;
}

/** Where a protocol was read from and whether it is the published one; recorded with every run. */
export interface ProtocolSource {
  layout: ProtocolLayout;
  /** The protocol folder (absolute; evalog's own folder is BUNDLED_SOURCE). */
  dir: string;
  /** True only for the upstream layout with all four files at their published hashes. */
  pinned: boolean;
  files: { config: ProtocolFileRecord; official_manifest: ProtocolFileRecord; synthetic_manifest: ProtocolFileRecord; answer_prompt: ProtocolFileRecord };
}

/** What every output of a run says about its protocol. */
export type ProtocolStatus = 'pinned protocol' | 'unpinned protocol' | 'evalog offline variant';

/** The status line of a protocol source: the published files by hash, another upstream-layout folder, or evalog's own files. */
export function protocolStatus(source: ProtocolSource): ProtocolStatus {
  if (source.layout === 'bundled') return 'evalog offline variant';
  return source.pinned ? 'pinned protocol' : 'unpinned protocol';
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
  source: ProtocolSource;
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
 * Loads evalog's bundled variant from `dir` (default: this package's `manifests/`). The answer
 * prompt path in the config is resolved against `dir`. Throws `ProtocolValidationError` naming the
 * file and field. The published protocol's id is refused here: it is read only from the upstream
 * files themselves (`loadProtocolDir`), so these files never pass for it.
 */
export function loadProtocol(dir: URL = PROTOCOL_DIR, options: LoadProtocolOptions = {}): Protocol {
  const base = dir.href.endsWith('/') ? dir : new URL(`${dir.href}/`);
  const files = {
    config: toPath(options.configPath ?? new URL(CONFIG_FILE, base)),
    official: toPath(options.officialPath ?? new URL(OFFICIAL_MANIFEST_FILE, base)),
    synthetic: toPath(options.syntheticPath ?? new URL(SYNTHETIC_MANIFEST_FILE, base)),
  };
  return assembleProtocol('bundled', resolve(fileURLToPath(base)), files, parseJsonFile, (config, file) => {
    if (config.protocol_id === PUBLISHED_PROTOCOL_ID)
      throw new ProtocolValidationError(file, [
        {
          path: 'protocol_id',
          message: `${JSON.stringify(PUBLISHED_PROTOCOL_ID)} is the published protocol's id; evalog's own files carry their own id (the published protocol is read from its files with --protocol-dir)`,
        },
      ]);
  });
}

/**
 * Reads, validates and cross-checks the three files and the config's answer prompt (resolved
 * against `dir`), in either layout; `parseConfig` reads the config's bytes (JSON or YAML), and
 * `checkConfig` adds a layout's own rule. The result is frozen; `pinned` is decided by the caller.
 */
export function assembleProtocol(
  layout: ProtocolLayout,
  dir: string,
  paths: Omit<ProtocolFiles, 'answerPrompt'>,
  parseConfig: (file: string, bytes: Buffer) => unknown,
  checkConfig: (config: MemoryEvictionConfig, file: string) => void = () => {},
  pinned = false,
): Protocol {
  const { config: configFile, official: officialFile, synthetic: syntheticFile } = paths;
  const configBytes = readBytes(configFile);
  const config = validateConfig(parseConfig(configFile, configBytes), configFile);
  checkConfig(config, configFile);
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

  const promptFile = join(dir, config.qa.answer_prompt.path);
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

  const artifacts: ProtocolArtifacts = {
    config_sha256: sha256Hex(configBytes),
    official_manifest_sha256: sha256Hex(officialBytes),
    synthetic_manifest_sha256: sha256Hex(syntheticBytes),
    answer_prompt_sha256: promptSha,
  };
  const record = (file: string, sha256: string): ProtocolFileRecord => ({ path: inside(dir, file), sha256 });
  return deepFreeze({
    config,
    official,
    synthetic,
    answerPrompt,
    evaluationTime: new Date(Date.parse(config.evaluation_time)),
    artifacts,
    files: { config: configFile, official: officialFile, synthetic: syntheticFile, answerPrompt: promptFile },
    source: {
      layout,
      dir: recordedDir(dir),
      pinned,
      files: {
        config: record(configFile, artifacts.config_sha256),
        official_manifest: record(officialFile, artifacts.official_manifest_sha256),
        synthetic_manifest: record(syntheticFile, artifacts.synthetic_manifest_sha256),
        answer_prompt: record(promptFile, promptSha),
      },
    },
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

/**
 * How evalog's own folder is recorded: by a name, so no run names this machine's install path. The
 * name is where the folder was before the study became a package; recorded runs and golden logs hold it.
 */
export const BUNDLED_SOURCE = 'evalog:manifests/memory-eviction';

function recordedDir(dir: string): string {
  return dir === resolve(fileURLToPath(PROTOCOL_DIR)) ? BUNDLED_SOURCE : dir;
}

/** A file's path relative to `dir` when it lies inside it, else its absolute path. */
function inside(dir: string, file: string): string {
  const rel = relative(dir, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel.split(sep).join('/');
}

/** Reads a protocol file's bytes; a missing or unreadable file is a ProtocolValidationError naming it. */
export function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ProtocolValidationError(file, [{ path: '(file)', message: `cannot be read: ${(err as Error).message}` }]);
  }
}

/** Parses a protocol file as UTF-8 JSON, naming the file when it is not. */
export function parseJsonFile(file: string, bytes: Buffer): unknown {
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

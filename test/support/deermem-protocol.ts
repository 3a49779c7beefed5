/**
 * A stand-in for upstream's `deermem_eviction/` folder, in evalog's own words: the bundled offline
 * variant's files (evalog's prompt and guards, never the upstream text) laid out as upstream lays
 * out its folder. The JSON config becomes YAML with the upstream key set (hybrid_v1 names its
 * policy), and can pin a synthetic dataset's hash. Its hashes are not the published ones, so it
 * runs with `--allow-unpinned` only.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { MANIFEST_DIR_PATH } from './longmemeval.js';

/** The stand-in's files and their sha256, by artifact name. */
export interface StandInProtocol {
  dir: string;
  files: { config: string; official: string; synthetic: string; answerPrompt: string };
  artifacts: { config_sha256: string; official_manifest_sha256: string; synthetic_manifest_sha256: string; answer_prompt_sha256: string };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Writes the stand-in into `dir` (created); `datasetSha256` pins a test dataset, `edit` changes the config first. */
export function writeStandInProtocol(dir: string, options: { datasetSha256?: string; edit?: (config: Record<string, unknown>) => void } = {}): StandInProtocol {
  const config = JSON.parse(readFileSync(join(MANIFEST_DIR_PATH, 'config.v1.json'), 'utf8')) as Record<string, unknown> & {
    dataset: { sha256: string };
    policies: { hybrid_v1: Record<string, unknown> };
  };
  if (options.datasetSha256) config.dataset.sha256 = options.datasetSha256;
  // Upstream's YAML names the hybrid policy inside its block; key order kept otherwise.
  config.policies.hybrid_v1 = { policy: 'hybrid-v1', ...config.policies.hybrid_v1 };
  options.edit?.(config);
  const files = {
    config: join(dir, 'configs', 'pr4789-reproduction-v1.yaml'),
    official: join(dir, 'manifests', 'longmemeval-pr4789-v1.json'),
    synthetic: join(dir, 'manifests', 'synthetic-corrections-pr4789-v1.json'),
    answerPrompt: join(dir, 'prompts', 'answer-v1.txt'),
  };
  for (const sub of ['configs', 'manifests', 'prompts']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(files.config, `# A stand-in config for evalog's tests, in the upstream layout (not the published file).\n${stringify(config)}`);
  copyFileSync(join(MANIFEST_DIR_PATH, 'official.v1.json'), files.official);
  copyFileSync(join(MANIFEST_DIR_PATH, 'synthetic.v1.json'), files.synthetic);
  copyFileSync(join(MANIFEST_DIR_PATH, 'prompts', 'answer-v1.txt'), files.answerPrompt);
  return {
    dir,
    files,
    artifacts: {
      config_sha256: sha(files.config),
      official_manifest_sha256: sha(files.official),
      synthetic_manifest_sha256: sha(files.synthetic),
      answer_prompt_sha256: sha(files.answerPrompt),
    },
  };
}

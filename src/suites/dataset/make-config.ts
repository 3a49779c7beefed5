import { resolve } from 'node:path';
import { readCaseFile } from './case-file.js';
import { DATASET_DEFAULTS, DatasetConfig } from './config.js';
import { DatasetSuiteError } from './errors.js';

/** What a programmatic run gives: the case file's path and any config fields to change. */
export type DatasetConfigInput = { data: string } & Partial<Omit<DatasetConfig, 'data'>>;

/**
 * A validated dataset config for programmatic runs (benchmarks, tests): the case file (relative to
 * `cwd`) read, hashed and checked once, the rest merged over the defaults.
 */
export function datasetConfig(input: DatasetConfigInput, cwd = process.cwd()): DatasetConfig {
  const file = readCaseFile(resolve(cwd, input.data));
  const merged = { ...DATASET_DEFAULTS, ...input, data: { path: file.path, sha256: file.sha256 } };
  const parsed = DatasetConfig.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatasetSuiteError(`dataset config: field ${issue.path.join('.') || '(root)'}: ${issue.message}`, { cause: parsed.error });
  }
  return parsed.data as DatasetConfig;
}

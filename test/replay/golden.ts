import { fileURLToPath } from 'node:url';
import { datasetConfig, datasetSuite, type DatasetConfig } from '../../src/suites/dataset/index.js';
import { buildCases } from '../../packages/suite-memory-eviction/src/cases.js';
import { loadDataset } from '../../packages/suite-memory-eviction/src/dataset.js';
import { loadProtocol } from '../../packages/suite-memory-eviction/src/protocol.js';
import { memoryEvictionQaSuite } from '../../packages/suite-memory-eviction/src/qa-suite.js';
import { memoryEvictionPolicySuite } from '../../packages/suite-memory-eviction/src/policy-suite.js';
import { memoryEvictionGradeSuite, type GradedAnswers } from '../../packages/suite-memory-eviction/src/grade-suite.js';
import type { DefinedSuite } from '../../src/harness/suite/index.js';
import { makeTestSetup } from '../support/longmemeval.js';

/** Clock of the golden runs: a fixed start and a fixed step per reading. */
export const GOLDEN_START_MS = Date.UTC(2026, 0, 1);
export const GOLDEN_STEP_MS = 7;

/** The memory-eviction suite bound to the synthetic test dataset (generated identically every time). */
export function boundMemoryEvictionSuite(): { suite: DefinedSuite; cleanup: () => void } {
  const setup = makeTestSetup();
  const protocol = loadProtocol(undefined, { configPath: setup.config.path });
  const dataset = loadDataset(setup.dataset.path, protocol.config.dataset.sha256);
  const suite = memoryEvictionQaSuite({ protocol, cases: buildCases(protocol, dataset), datasetSha256: dataset.sha256 });
  return { suite, cleanup: setup.cleanup };
}

/**
 * The memory-eviction step suites bound to the same synthetic dataset: run-policy's, and grade-qa's
 * (given the answers to plan from, for a new golden run; a recorded one has them in its plan).
 */
export function boundMemoryEvictionSteps(answers: GradedAnswers | null = null): { policy: DefinedSuite; grade: DefinedSuite; cleanup: () => void } {
  const setup = makeTestSetup();
  const protocol = loadProtocol(undefined, { configPath: setup.config.path });
  const dataset = loadDataset(setup.dataset.path, protocol.config.dataset.sha256);
  const ctx = { protocol, cases: buildCases(protocol, dataset), datasetSha256: dataset.sha256 };
  return { policy: memoryEvictionPolicySuite(ctx), grade: memoryEvictionGradeSuite({ ...ctx, answers }), cleanup: setup.cleanup };
}

/** The repository root: the dataset golden log names its case file relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The dataset suite reading relative case-file paths from the repository root. */
export function goldenDatasetSuite(): DefinedSuite {
  return datasetSuite({ baseDir: REPO_ROOT });
}

/** The dataset golden config: examples/qa.jsonl (by relative path, so the log replays in any checkout), two prompt variants. */
export function goldenDatasetConfig(): DatasetConfig {
  const config = datasetConfig(
    {
      data: 'examples/qa.jsonl',
      prompts: { plain: '{{input}}', terse: 'Answer as briefly as you can.\n\n{{input}}' },
      system: 'You are a careful assistant.',
      concurrency: 1,
    },
    REPO_ROOT,
  );
  return { ...config, data: { path: 'examples/qa.jsonl', sha256: config.data!.sha256 } };
}

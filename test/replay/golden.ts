import { buildCases } from '../../src/suites/memory-eviction/cases.js';
import { loadDataset } from '../../src/suites/memory-eviction/dataset.js';
import { loadProtocol } from '../../src/suites/memory-eviction/protocol.js';
import { memoryEvictionQaSuite } from '../../src/suites/memory-eviction/qa-suite.js';
import type { Suite, SuiteConfigBase } from '../../src/suites/types.js';
import { makeTestSetup } from '../support/longmemeval.js';

/** Clock of the golden runs: a fixed start and a fixed step per reading. */
export const GOLDEN_START_MS = Date.UTC(2026, 0, 1);
export const GOLDEN_STEP_MS = 7;

/** The memory-eviction suite bound to the synthetic test dataset (generated identically every time). */
export function boundMemoryEvictionSuite(): { suite: Suite<SuiteConfigBase, unknown>; cleanup: () => void } {
  const setup = makeTestSetup();
  const protocol = loadProtocol(undefined, { configPath: setup.config.path });
  const dataset = loadDataset(setup.dataset.path, protocol.config.dataset.sha256);
  const suite = memoryEvictionQaSuite({ protocol, cases: buildCases(protocol, dataset), datasetSha256: dataset.sha256 });
  return { suite: suite as unknown as Suite<SuiteConfigBase, unknown>, cleanup: setup.cleanup };
}

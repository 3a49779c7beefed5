import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { baseConfigShape } from '../../harness/suite/base-config.js';
import type { SuiteConfigBase } from '../../harness/suite/types.js';

/** The suite's config: the base settings, pinned where the protocol fixes them. */
export const ContextSnapshotConfig = z
  .object({
    ...baseConfigShape,
    protocol: z.literal('context-snapshot-synthetic-v1'),
    contextWindow: z.number().int().positive().describe('Context window the protocol assumes (recorded, not enforced)'),
    // The protocol disables provider retries: a failed call is a recorded failure, not a retry.
    provider: baseConfigShape.provider.refine((p) => p.maxAttempts === 1, {
      message: 'maxAttempts must be 1 (the protocol disables retries)',
      path: ['maxAttempts'],
    }),
  })
  .strict();
/** The validated config. */
export type ContextSnapshotConfig = z.infer<typeof ContextSnapshotConfig> & SuiteConfigBase;

/** The versioned default config file, hashed into provenance with the other manifests. */
export const DEFAULT_CONFIG = new URL('../../../manifests/context-snapshot/config.v1.json', import.meta.url);

/** The default config, as the versioned file gives it. */
export function defaultConfig(): ContextSnapshotConfig {
  return ContextSnapshotConfig.parse(JSON.parse(readFileSync(DEFAULT_CONFIG, 'utf8'))) as ContextSnapshotConfig;
}

// What the model-free steps (run-policy, grade-qa) share as runs: the base settings of a run that
// calls no model, and the protocol hashes a recorded run is checked against before it goes on.
import type { baseConfigShape } from 'evalog';
import { DEFAULT_MAX_RETRY_AFTER_MS, UserError } from 'evalog';
import { z } from 'zod';
import type { Protocol } from './protocol.js';

/** sha256 of the protocol files and the dataset, as every memory-eviction run records them. */
export const Artifacts = z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).describe('sha256 of config, manifests, prompt and dataset');

/** The hashes a run of this protocol and dataset records: the protocol's files and the dataset. */
export function artifactsOf(protocol: Protocol, datasetSha256: string): Record<string, string> {
  return { ...protocol.artifacts, dataset_sha256: datasetSha256 };
}

/** The names of the recorded hashes that differ now (sorted). */
export function changedArtifacts(recorded: Readonly<Record<string, string>> | undefined, now: Readonly<Record<string, string>>): string[] {
  const before = recorded ?? {};
  return Object.keys({ ...before, ...now })
    .filter((k) => before[k] !== now[k])
    .sort();
}

/** A recorded run's protocol or dataset differs from the one given now: its jobs would not be the run's. */
export class ArtifactsChangedError extends UserError {
  override name = 'ArtifactsChangedError';
  constructor(
    readonly runOf: string,
    readonly changed: readonly string[],
  ) {
    super(`the ${runOf} run's protocol or dataset changed since it started: ${changed.join(', ')}`);
  }
}

/** Refuses a recorded config whose hashes are not those of the inputs now (ArtifactsChangedError). */
export function checkArtifacts(runOf: string, recorded: Readonly<Record<string, string>>, now: Readonly<Record<string, string>>): void {
  const changed = changedArtifacts(recorded, now);
  if (changed.length > 0) throw new ArtifactsChangedError(runOf, changed);
}

/**
 * The base settings of a run of compute jobs: one repetition, no model (sampling, worker and
 * provider settings are required by the base config and never used).
 */
export function computeBase(concurrency: number): z.infer<z.ZodObject<typeof baseConfigShape>> {
  return {
    repetitions: 1,
    concurrency,
    seed: 0,
    orderSeed: 0,
    cases: null,
    model: { temperature: 0, maxTokens: 1 },
    worker: { turnCap: 1, timeLimitMs: 1 },
    provider: { timeoutMs: 1, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS },
  };
}

/** A step's output lines name a protocol that is not the published one by hash (as the other steps' lines do). */
export function statusSuffixOf(status: string): string {
  return status === 'pinned protocol' ? '' : ` (${status})`;
}

/** How many compute jobs run at once: they are CPU work in this process, so a few. */
export const COMPUTE_CONCURRENCY = 4;

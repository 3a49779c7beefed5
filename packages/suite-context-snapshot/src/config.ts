import { readFileSync } from 'node:fs';
import type { SuiteConfigBase } from 'evalog';
import { baseConfigShape, UserError } from 'evalog';
import { z } from 'zod';
import { PROTOCOL_FILES } from './protocol/pins.js';

/** The id of evalog's own bundled variant: its eight tasks are re-authored look-alikes, not the published protocol. */
export const BUNDLED_PROTOCOL_ID = 'evalog-context-snapshot-synthetic-v1';

/**
 * The published protocol's id, which evalog once gave its bundled variant. Runs recorded so still
 * read (their configs validate, so rebuild, replay and resume can say why they cannot go on), but
 * the suite prepares no run under it: see LegacyBundledRunError.
 */
export const LEGACY_BUNDLED_ID = 'context-snapshot-synthetic-v1';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** One file of a protocol folder as the run read it: its sha256 and the published pin. */
const ProtocolFile = z.object({ file: z.enum(PROTOCOL_FILES), sha256, pinned: sha256 }).strict();

/** The suite's config: the base settings, pinned where the protocol fixes them. */
export const ContextSnapshotConfig = z
  .object({
    ...baseConfigShape,
    protocol: z.string().min(1).describe(`Protocol id: ${BUNDLED_PROTOCOL_ID} (the bundled variant) or the id a protocol folder's config.json gives`),
    // The defaults are those of a config recorded before the fields existed (the bundled variant).
    protocolDir: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('Absolute path of the protocol folder the run reads (--protocol-dir); null = the bundled variant'),
    allowUnpinned: z.boolean().default(false).describe('Whether files that are not the published bytes were accepted (--allow-unpinned)'),
    protocolFiles: z
      .array(ProtocolFile)
      .nullable()
      .default(null)
      .describe('Every protocol file with the sha256 read at run start; resume and workers refuse a folder whose bytes differ'),
    protocolCases: z
      .record(z.string(), z.enum(['json', 'python']))
      .nullable()
      .default(null)
      .describe("The protocol's case names and kinds, as read at run start (the artifact files' extensions come from it)"),
    contextWindow: z.number().int().positive().describe('Context window the protocol assumes (recorded, not enforced)'),
    // The suite's own worker limit (see graph-steps.ts), beside the harness's: the key the base
    // config once had, at the same place, so recorded configs (and their hashes) are unchanged.
    worker: baseConfigShape.worker.extend({
      graphSteps: z
        .number()
        .int()
        .min(1)
        .max(10_000)
        .optional()
        .describe(
          "The published deer-flow executor's step limit (LangGraph recursion_limit, its max_graph_steps): the worker stops where that limit stops the executor's graph, 7 super-steps a model turn and tool round ('graph_step_cap'); absent = turns alone",
        ),
    }),
    // The protocol disables provider retries: a failed call is a recorded failure, not a retry.
    provider: baseConfigShape.provider.refine((p) => p.maxAttempts === 1, {
      message: 'maxAttempts must be 1 (the protocol disables retries)',
      path: ['maxAttempts'],
    }),
  })
  .strict()
  .superRefine((c, ctx) => {
    const bundled = c.protocolDir === null;
    if (bundled && c.protocol !== BUNDLED_PROTOCOL_ID && c.protocol !== LEGACY_BUNDLED_ID)
      ctx.addIssue({ code: 'custom', path: ['protocol'], message: `the bundled variant's id is ${BUNDLED_PROTOCOL_ID}; a protocol folder needs protocolDir` });
    if (bundled && (c.protocolFiles !== null || c.protocolCases !== null))
      ctx.addIssue({ code: 'custom', path: [c.protocolFiles !== null ? 'protocolFiles' : 'protocolCases'], message: 'only a protocol folder run has it' });
    if (!bundled && (c.protocolFiles === null || c.protocolCases === null))
      ctx.addIssue({
        code: 'custom',
        path: [c.protocolFiles === null ? 'protocolFiles' : 'protocolCases'],
        message: 'a protocol folder run records it (give the folder with --protocol-dir)',
      });
  });
/** The validated config. */
export type ContextSnapshotConfig = z.infer<typeof ContextSnapshotConfig> & SuiteConfigBase;

/** A bundled run under the id evalog once gave the variant: its prompts are not the ones this evalog sends. */
export class LegacyBundledRunError extends UserError {
  override name = 'LegacyBundledRunError';
  constructor() {
    super(
      `context-snapshot: config field protocol is ${LEGACY_BUNDLED_ID}, the id earlier evalog versions gave their bundled variant, whose requests this evalog no longer sends: ` +
        `a run recorded with it can be rebuilt but not replayed or resumed; a new run of the bundled variant is ${BUNDLED_PROTOCOL_ID}, and --protocol-dir DIR runs the published protocol`,
    );
  }
}

/** Whether a config runs a protocol folder (else the bundled variant). */
export const isProtocolRun = (c: Pick<ContextSnapshotConfig, 'protocolDir'>): boolean => c.protocolDir !== null;

/** Whether a run's protocol files are all the published bytes (the bundled variant has no pins: null). */
export function protocolPinned(c: { protocolFiles: readonly { sha256: string; pinned: string }[] | null }): boolean | null {
  return c.protocolFiles === null ? null : c.protocolFiles.every((f) => f.sha256 === f.pinned);
}

/** How run.json and summary.json name the protocol a run ran: the bundled variant, the published bytes, or an unpinned protocol. */
export function protocolStatus(config: Parameters<typeof protocolPinned>[0]): string {
  const pinned = protocolPinned(config);
  return pinned === null ? "evalog's own bundled variant, not the published protocol" : pinned ? 'published protocol (pinned sha256)' : 'unpinned protocol';
}

/** The versioned default config file, hashed into provenance with the other manifests. */
export const DEFAULT_CONFIG = new URL('../manifests/config.v1.json', import.meta.url);

/** The default config, as the versioned file gives it. */
export function defaultConfig(): ContextSnapshotConfig {
  return ContextSnapshotConfig.parse(JSON.parse(readFileSync(DEFAULT_CONFIG, 'utf8'))) as ContextSnapshotConfig;
}

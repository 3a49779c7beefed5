// The run config of run-qa and the record of where a protocol came from, as runs record them: apart
// from the suite so that projections of a recorded run (qa_run.json) read them without the suite.
import { baseConfigShape } from 'evalog';
import { z } from 'zod';
import { type ProtocolSource, protocolStatus } from './protocol.js';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const FileRecord = z.object({ path: z.string(), sha256 }).strict();

/** Where the protocol came from, as recorded with the run (and so in run.json and qa_run.json). */
export const QaProtocolRecord = z
  .object({
    layout: z.enum(['bundled', 'upstream']).describe("bundled = evalog's own offline variant; upstream = a deermem_eviction/ folder"),
    source: z.string().describe('The protocol folder'),
    pinned: z.boolean().describe("Every file at the published protocol's hash"),
    status: z.enum(['pinned protocol', 'unpinned protocol', 'evalog offline variant']),
    files: z.object({ config: FileRecord, official_manifest: FileRecord, synthetic_manifest: FileRecord, answer_prompt: FileRecord }).strict(),
  })
  .strict();

/** The run config of run-qa: base settings from the protocol, plus the hashes a resume must match. */
export const QaRunConfig = z
  .object({
    ...baseConfigShape,
    protocolId: z.string(),
    artifacts: z.record(z.string(), sha256).describe('sha256 of config, manifests, prompt and dataset'),
    protocol: QaProtocolRecord,
    dataset: z.object({ repository: z.string(), revision: z.string(), filename: z.string() }).strict().describe("The config's pinned dataset"),
    qa: z
      .object({
        capacity: z.number().int(),
        model: z.string(),
        temperature: z.number(),
        max_tokens: z.number().int(),
        stream: z.boolean(),
        timeout_seconds: z.number(),
        max_attempts: z.number().int(),
        workers: z.number().int(),
        grader_version: z.string(),
        api_key_env: z.string(),
        base_url_env: z.string(),
      })
      .strict()
      .describe("The protocol's QA settings, as qa_run.json publishes them"),
  })
  .strict();
/** The validated run config. */
export type QaRunConfig = z.infer<typeof QaRunConfig>;

/** The record of a protocol source, as a run's config keeps it (and qa_run.json and run.json publish it). */
export function protocolRecord(source: ProtocolSource): z.infer<typeof QaProtocolRecord> {
  return {
    layout: source.layout,
    source: source.dir,
    pinned: source.pinned,
    status: protocolStatus(source),
    files: {
      config: { ...source.files.config },
      official_manifest: { ...source.files.official_manifest },
      synthetic_manifest: { ...source.files.synthetic_manifest },
      answer_prompt: { ...source.files.answer_prompt },
    },
  };
}

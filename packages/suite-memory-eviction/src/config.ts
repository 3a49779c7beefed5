/**
 * The memory-eviction config (spec A1), snake_case as in the published YAML. Unknown keys are
 * rejected at every level; the cross-field rules of A1 are checked here. The same rules validate
 * evalog's bundled JSON config and the upstream YAML read from a user's `deermem_eviction/` copy.
 */
import { z } from 'zod';

/** The published protocol's id: it is read only from the upstream files themselves (`--protocol-dir`). */
export const PUBLISHED_PROTOCOL_ID = 'deermem-hybrid-v1-pr4789-reproduction-v1';
/** The id of evalog's own bundled variant (its prompt and guards are evalog's, not the published ones). */
export const OFFLINE_PROTOCOL_ID = 'evalog-deermem-offline-v1';
/** Production constant `EVICTION_POLICY_HYBRID_V1`. */
export const EVICTION_POLICY_HYBRID_V1 = 'hybrid-v1';
export const GRADER_VERSION = 'deterministic-overlap-v1';
/** The policies compared, in output order. */
export const POLICIES = ['confidence', EVICTION_POLICY_HYBRID_V1] as const;
export type PolicyName = (typeof POLICIES)[number];

const hex = (len: number) => z.string().regex(new RegExp(`^[0-9a-f]{${len}}$`), `must be ${len} lowercase hex digits`);
const posInt = z.number().int().min(1);
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
/** ISO 8601 date-time that carries a timezone (`Z` or `±HH:MM`). */
export const ZONED_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?(?:Z|[+-]\d{2}:\d{2})$/;

const Weights = z
  .strictObject({
    confidence: z.number().min(0).max(1),
    confirmation: z.number().min(0).max(1),
    access: z.number().min(0).max(1),
  })
  .superRefine((w, ctx) => {
    const sum = w.confidence + w.confirmation + w.access;
    if (Math.abs(sum - 1) > 1e-9) ctx.addIssue({ code: 'custom', message: `weights must sum to 1 (within 1e-9), got ${sum}` });
  });

const Pool = z
  .strictObject({
    size: z.number().int().min(2),
    capacities: z.array(posInt).min(1),
    qa_capacity: posInt,
    distractors: posInt,
    distractor_bank_size: posInt,
    distractor_types: z.array(z.string().min(1)).min(1),
    distractor_min_evidence_chars: z.number().int().min(0),
    distractor_max_evidence_chars: z.number().int().min(0),
    offset_namespace: z.string().min(1),
    fact_order: z.literal('fact-id'),
  })
  .superRefine((p, ctx) => {
    if (p.distractors !== p.size - 1)
      ctx.addIssue({ code: 'custom', path: ['distractors'], message: `must equal size - 1 (${p.size - 1}), got ${p.distractors}` });
    if (p.distractor_bank_size < p.distractors)
      ctx.addIssue({ code: 'custom', path: ['distractor_bank_size'], message: `must be >= distractors (${p.distractors}), got ${p.distractor_bank_size}` });
    p.distractor_types.forEach((t, i) => {
      if (p.distractor_types.indexOf(t) !== i) ctx.addIssue({ code: 'custom', path: ['distractor_types', i], message: `duplicate type ${JSON.stringify(t)}` });
    });
    p.capacities.forEach((c, i) => {
      if (p.capacities.indexOf(c) !== i) ctx.addIssue({ code: 'custom', path: ['capacities', i], message: `duplicate capacity ${c}` });
      if (c < 1 || c > p.size - 1) ctx.addIssue({ code: 'custom', path: ['capacities', i], message: `must be in [1, ${p.size - 1}], got ${c}` });
    });
    if (!p.capacities.includes(p.qa_capacity))
      ctx.addIssue({ code: 'custom', path: ['qa_capacity'], message: `must be one of capacities [${p.capacities.join(', ')}], got ${p.qa_capacity}` });
    if (p.distractor_min_evidence_chars > p.distractor_max_evidence_chars)
      ctx.addIssue({ code: 'custom', path: ['distractor_min_evidence_chars'], message: 'must be <= distractor_max_evidence_chars' });
  });

/** The A1 config file. */
export const MemoryEvictionConfig = z.strictObject({
  schema_version: z.literal(1),
  protocol_id: z.string().min(1),
  required_policy_version: z.literal(EVICTION_POLICY_HYBRID_V1),
  evaluation_time: z
    .string()
    .regex(ZONED_DATETIME, 'must be an ISO 8601 date-time with a timezone (Z or ±HH:MM)')
    .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a valid date-time'),
  dataset: z.strictObject({
    repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/name'),
    revision: hex(40),
    filename: z.string().regex(/^[^/\\]+$/, 'must be a bare file name'),
    sha256: hex(64),
  }),
  pool: Pool,
  // `policy` names the block's policy; the upstream YAML spells it for hybrid_v1 only, and its
  // loader defaults both, so it may be left out.
  policies: z.strictObject({
    confidence: z.strictObject({ policy: z.literal('confidence').optional() }),
    hybrid_v1: z.strictObject({
      policy: z.literal(EVICTION_POLICY_HYBRID_V1).optional(),
      weights: Weights,
      confirmation_half_life_days: z.number().positive(),
      access_half_life_days: z.number().positive(),
      correction_reserved_fraction: z.number().min(0).max(1),
      correction_reserved_max: z.number().int().min(0),
    }),
  }),
  qa: z.strictObject({
    answer_prompt: z.strictObject({
      path: z
        .string()
        .min(1)
        .refine((p) => !p.startsWith('/') && !p.split(/[\\/]/).includes('..'), 'must be a relative path inside the protocol directory'),
      sha256: hex(64),
    }),
    grader_version: z.literal(GRADER_VERSION),
    provider: z.literal('openai-compatible'),
    api_key_env: envName,
    base_url_env: envName,
    model: z.string().min(1),
    /** A Python float: serialised as `0.0` in fingerprints and run markers. */
    temperature: z.number().min(0).max(2),
    max_tokens: posInt,
    stream: z.literal(false),
    timeout_seconds: z.number().positive(),
    max_attempts: posInt,
    workers: posInt,
  }),
  statistics: z.strictObject({
    bootstrap_seed: z.number().int().min(0),
    bootstrap_iterations: posInt,
    alpha: z.number().gt(0).lt(1),
  }),
});
export type MemoryEvictionConfig = z.infer<typeof MemoryEvictionConfig>;

/** Keys of the config that are Python floats (serialised with a `.0` when whole). */
export const CONFIG_FLOAT_FIELDS = ['temperature', 'alpha', 'confidence', 'confirmation', 'access', 'correction_reserved_fraction'] as const;

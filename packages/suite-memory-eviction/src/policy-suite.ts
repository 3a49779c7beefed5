// run-policy as a run: one compute job per case × policy, each the selector at every capacity
// (policy-run.ts), its rows recorded as the job's result. policy.raw.jsonl, summary.json and
// run.json are folds of the log (policy-outputs.ts), so rebuild, resume and workers apply.
import type { CaseSpec, DefinedSuite, SuiteDefinition } from 'evalog';
import { baseConfigShape, defineSuite } from 'evalog';
import { z } from 'zod';
import { policyOutputs } from './policy-outputs.js';
import { evaluateCase, evaluationMicros, type PolicyRow, selectorParamsFromConfig } from './policy-run.js';
import { PROTOCOL_MANIFESTS, type Protocol } from './protocol.js';
import { protocolRecord, QaProtocolRecord } from './qa-config.js';
import { DatasetRequiredError } from './qa-suite.js';
import { EVICTION_POLICIES, type EvictionPolicy } from './selector.js';
import { Artifacts, artifactsOf, COMPUTE_CONCURRENCY, checkArtifacts, computeBase } from './step-config.js';
import type { EvalCase } from './types.js';

/** The suite's name, as RunStarted records it. */
export const POLICY_SUITE = 'memory-eviction-policy';

/** The run config of run-policy: the protocol's selection settings, and the hashes a resume must match. */
export const PolicyStepConfig = z
  .object({
    ...baseConfigShape,
    protocolId: z.string(),
    artifacts: Artifacts,
    protocol: QaProtocolRecord.describe('Where the protocol came from and its status, as run.json records them'),
    dataset: z.record(z.string(), z.unknown()).describe("The protocol's dataset pin, as run.json records it"),
    evaluationTime: z.union([z.string(), z.number()]).describe('evaluation_time exactly as the protocol config gives it'),
    capacities: z.array(z.number().int().min(1)).min(1),
    hybridV1: z
      .object({
        weights: z.object({ confidence: z.number(), confirmation: z.number(), access: z.number() }).strict(),
        confirmation_half_life_days: z.number(),
        access_half_life_days: z.number(),
        correction_reserved_fraction: z.number(),
        correction_reserved_max: z.number().int(),
      })
      .strict()
      .describe('policies.hybrid_v1 of the protocol config (both policies are run with it, as the reference does)'),
  })
  .strict();
/** The validated run config. */
export type PolicyStepConfig = z.infer<typeof PolicyStepConfig>;

/** What run-policy binds the suite to: the protocol and the dataset's cases. */
export interface PolicyContext {
  protocol: Protocol;
  cases: readonly EvalCase[];
  datasetSha256: string;
}

/** The plan's facts of a policy job: where its case stands in the protocol's order (the rows' order). */
export interface PolicyJobMeta {
  case_index: number;
}

/** The result of one job: its case under its policy at every capacity, in the config's order. */
export interface PolicyJobOutput {
  rows: PolicyRow[];
}

/** The run config for a protocol and dataset. */
export function policyStepConfig(ctx: PolicyContext): PolicyStepConfig {
  const cfg = ctx.protocol.config;
  return {
    ...computeBase(COMPUTE_CONCURRENCY),
    protocolId: cfg.protocol_id,
    artifacts: artifactsOf(ctx.protocol, ctx.datasetSha256),
    protocol: protocolRecord(ctx.protocol.source),
    dataset: { ...cfg.dataset },
    evaluationTime: cfg.evaluation_time,
    capacities: [...cfg.pool.capacities],
    hybridV1: {
      weights: { ...cfg.policies.hybrid_v1.weights },
      confirmation_half_life_days: cfg.policies.hybrid_v1.confirmation_half_life_days,
      access_half_life_days: cfg.policies.hybrid_v1.access_half_life_days,
      correction_reserved_fraction: cfg.policies.hybrid_v1.correction_reserved_fraction,
      correction_reserved_max: cfg.policies.hybrid_v1.correction_reserved_max,
    },
  };
}

/** One case × policy's rows: the selector at each capacity, as `runPolicy` computes them. */
export function policyJobRows(c: EvalCase, policy: EvictionPolicy, config: PolicyStepConfig): PolicyRow[] {
  const params = selectorParamsFromConfig(config.hybridV1);
  const nowUs = evaluationMicros(config.evaluationTime);
  return config.capacities.map((capacity) => evaluateCase(c, policy, capacity, params, nowUs));
}

/** The policy suite's definition (its hooks, typed); `ctx` null = unbound: its outputs fold any log, it cannot run. */
export function memoryEvictionPolicyDefinition(ctx: PolicyContext | null): SuiteDefinition<PolicyStepConfig, EvalCase, never> {
  const need = () => {
    if (!ctx) throw new DatasetRequiredError();
    return ctx;
  };
  return {
    name: POLICY_SUITE,
    description: 'memory-eviction run-policy: every case × capacity × policy through the selector (no model)',
    shape: 'compute',
    manifests: PROTOCOL_MANIFESTS,
    configSchema: PolicyStepConfig,
    get defaults() {
      return policyStepConfig(need());
    },
    async prepare(config) {
      const bound = need();
      // A recorded run goes on only with the protocol and dataset it started with (resume, workers).
      checkArtifacts('run-policy', config.artifacts, artifactsOf(bound.protocol, bound.datasetSha256));
      return { cases: bound.cases.map((c): CaseSpec<EvalCase> => ({ id: c.case_id, data: c })) };
    },
    arms: () => [...EVICTION_POLICIES],
    jobMeta: (c): PolicyJobMeta => ({ case_index: need().cases.indexOf(c.data) }),
    compute: {
      compute: (c, job, config): Record<string, unknown> => {
        const output: PolicyJobOutput = { rows: policyJobRows(c.data, job.arm as EvictionPolicy, config) };
        return { ...output };
      },
    },
    outputs: policyOutputs,
  };
}

/** The run-policy suite, bound to a protocol and dataset (or unbound, for its outputs only). */
export function memoryEvictionPolicySuite(ctx: PolicyContext | null): DefinedSuite {
  return defineSuite(memoryEvictionPolicyDefinition(ctx));
}

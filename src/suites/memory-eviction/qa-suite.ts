import { z } from 'zod';
import { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from '../../harness/suite/base-config.js';
import { defineSuite, type CaseSpec, type DefinedSuite, type SuiteCli, type SuiteDefinition } from '../../harness/suite/index.js';
import type { Protocol } from './protocol.js';
import { qaTask, taskMeta, type QaTask } from './qa-plan.js';
import { qaReport } from './qa-report.js';
import { EVICTION_POLICIES, type EvictionPolicy } from './selector.js';
import type { EvalCase } from './types.js';
import { UserError } from '../../core/errors.js';

/** The run config of run-qa: base settings from the protocol, plus the hashes a resume must match. */
export const QaRunConfig = z
  .object({
    ...baseConfigShape,
    protocolId: z.string(),
    artifacts: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)).describe('sha256 of config, manifests, prompt and dataset'),
  })
  .strict();
/** The validated run config. */
export type QaRunConfig = z.infer<typeof QaRunConfig>;

/** What run-qa binds the suite to: the protocol and the dataset's cases. */
export interface QaContext {
  protocol: Protocol;
  cases: readonly EvalCase[];
  datasetSha256: string;
}

/** The suite needs a dataset to have cases; without one only its report (rows from a log) works. */
export class DatasetRequiredError extends UserError {
  override name = 'DatasetRequiredError';
  constructor() {
    super('memory-eviction needs its dataset: give --dataset PATH or set LONGMEMEVAL_ORACLE_PATH');
  }
}

/** The run config for a protocol and dataset. */
export function qaRunConfig(ctx: QaContext): QaRunConfig {
  const qa = ctx.protocol.config.qa;
  return {
    repetitions: 1,
    concurrency: qa.workers,
    seed: 0,
    orderSeed: 0,
    cases: null,
    model: { temperature: qa.temperature, maxTokens: qa.max_tokens },
    worker: { turnCap: 1, timeLimitMs: qa.timeout_seconds * 1000 },
    // The protocol sleeps 2 s before each retry.
    provider: {
      timeoutMs: qa.timeout_seconds * 1000,
      maxAttempts: qa.max_attempts,
      backoffMs: 2000,
      maxBackoffMs: 2000,
      maxRetryAfterMs: DEFAULT_MAX_RETRY_AFTER_MS,
    },
    protocolId: ctx.protocol.config.protocol_id,
    artifacts: { ...ctx.protocol.artifacts, dataset_sha256: ctx.datasetSha256 },
  };
}

/** A case of a run: the dataset case and its QA task per policy, built when first asked for (planning, then the job). */
export interface QaCase {
  evalCase: EvalCase;
  task(policy: string): QaTask;
}

/** The cases of a bound dataset, each with its own task memo: built per run in `prepare`, never kept between runs. */
function qaCases(ctx: QaContext): CaseSpec<QaCase>[] {
  return ctx.cases.map((c) => {
    const tasks = new Map<string, QaTask>();
    const task = (policy: string) => {
      let t = tasks.get(policy);
      if (!t) {
        t = qaTask(ctx.protocol, c, policy as EvictionPolicy);
        tasks.set(policy, t);
      }
      return t;
    };
    return { id: c.case_id, data: { evalCase: c, task } };
  });
}

/** The QA suite's definition (its hooks, typed), for tests of the hooks themselves. */
export function memoryEvictionQaDefinition(ctx: QaContext | null): SuiteDefinition<QaRunConfig, QaCase, never> {
  const need = () => {
    if (!ctx) throw new DatasetRequiredError();
    return ctx;
  };
  return {
    name: 'memory-eviction',
    description: 'Memory eviction policies (confidence vs hybrid-v1) answered from the kept facts, graded blind later',
    shape: 'single-call',
    configSchema: QaRunConfig,
    get defaults() {
      return qaRunConfig(need());
    },
    prepare: async () => ({ cases: qaCases(need()) }),
    arms: () => [...EVICTION_POLICIES],
    jobMeta: (c, arm) => taskMeta(c.data.task(arm)),
    call: { request: (c, job) => ({ messages: c.data.task(job.arm).messages, tools: [] }) },
    report: qaReport,
  };
}

/** The memory-eviction QA suite: one answerer call per case × policy at the QA capacity, graded later. */
export function memoryEvictionQaSuite(ctx: QaContext | null): DefinedSuite {
  return defineSuite(memoryEvictionQaDefinition(ctx));
}

/** Its command-line adjunct: the endpoint variables of the answerer. */
export const memoryEvictionCli: SuiteCli = {
  endpointEnv: { baseUrl: 'DEERMEM_EVAL_ANSWER_BASE_URL', model: 'DEERMEM_EVAL_ANSWER_MODEL', apiKey: 'DEERMEM_EVAL_ANSWER_API_KEY' },
};

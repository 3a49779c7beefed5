import type { CaseSpec, DefinedSuite, SuiteCli, SuiteDefinition } from 'evalog';
import { defineSuite, UserError } from 'evalog';
import { buildRequestPayload } from './fingerprint.js';
import { PROTOCOL_MANIFESTS, type Protocol } from './protocol.js';
import { protocolRecord, QaRunConfig } from './qa-config.js';
import { type QaTask, qaTask, taskMeta } from './qa-plan.js';
import { qaReport } from './qa-report.js';
import { EVICTION_POLICIES, type EvictionPolicy } from './selector.js';
import type { EvalCase } from './types.js';

// The config schemas live in qa-config.ts (qa_run.json's projection reads them without this module).
export { protocolRecord, QaProtocolRecord, QaRunConfig } from './qa-config.js';

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
  const cfg = ctx.protocol.config;
  const qa = cfg.qa;
  return {
    repetitions: 1,
    concurrency: qa.workers,
    seed: 0,
    orderSeed: 0,
    cases: null,
    model: { temperature: qa.temperature, maxTokens: qa.max_tokens },
    worker: { turnCap: 1, timeLimitMs: Math.round(qa.timeout_seconds * 1000) },
    // The protocol sleeps 2 s before each retry and reads no Retry-After (a cap of 0 waits for none
    // beyond the 2 s).
    provider: {
      timeoutMs: Math.round(qa.timeout_seconds * 1000),
      maxAttempts: qa.max_attempts,
      backoffMs: 2000,
      maxBackoffMs: 2000,
      maxRetryAfterMs: 0,
    },
    protocolId: cfg.protocol_id,
    artifacts: { ...ctx.protocol.artifacts, dataset_sha256: ctx.datasetSha256 },
    protocol: protocolRecord(ctx.protocol.source),
    dataset: { repository: cfg.dataset.repository, revision: cfg.dataset.revision, filename: cfg.dataset.filename },
    qa: {
      capacity: cfg.pool.qa_capacity,
      model: qa.model,
      temperature: qa.temperature,
      max_tokens: qa.max_tokens,
      stream: qa.stream,
      timeout_seconds: qa.timeout_seconds,
      max_attempts: qa.max_attempts,
      workers: qa.workers,
      grader_version: qa.grader_version,
      api_key_env: qa.api_key_env,
      base_url_env: qa.base_url_env,
    },
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
    manifests: PROTOCOL_MANIFESTS,
    configSchema: QaRunConfig,
    get defaults() {
      return qaRunConfig(need());
    },
    prepare: async () => ({ cases: qaCases(need()) }),
    arms: () => [...EVICTION_POLICIES],
    jobMeta: (c, arm) => taskMeta(c.data.task(arm)),
    // The body is exactly the protocol's payload {model, temperature, max_tokens, stream, messages}
    // (no seed, no other sampling field), and a reply without a string content fails unretried, as
    // upstream's provider treats it.
    call: {
      request: (c, job) => {
        const { model, messages, ...params } = buildRequestPayload(need().protocol.config.qa, c.data.task(job.arm).messages);
        return { model, messages: [...messages], tools: [], params, strictReply: true };
      },
    },
    report: qaReport,
    // LongMemEval's questions, facts and answers are not ours to publish: rows keep their hashes only.
    rowText: 'hashes',
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

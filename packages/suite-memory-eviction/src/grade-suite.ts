// grade-qa as a run of its own: one compute job per answered QA row (case × policy, the run-qa
// job's id), the answer taken from the run-qa log into the plan, graded blind against the reference
// answer of the dataset. qa.rows.jsonl, qa.summary.json and qa.stats.json are folds of its log
// (grade-outputs.ts).
//
// Why a run of its own rather than a stage appended to the run-qa log: the run-qa log is complete
// (RunCompleted), its plan names only the answer calls, and replaying or resuming it must give the
// events it holds; grades appended there would be events no actor of that run emits. A grade run
// has its own plan, resume, replay, workers and rebuild, and names the QA run it graded.
import type { CaseSpec, DefinedSuite, SuiteDefinition } from 'evalog';
import { baseConfigShape, defineSuite, RunId } from 'evalog';
import { z } from 'zod';
import { gradeOutputs } from './grade-outputs.js';
import { PROTOCOL_MANIFESTS, type Protocol, protocolStatus } from './protocol.js';
import { QaProtocolRecord } from './qa-config.js';
import { type AnswerRow, gradeFields } from './qa-grade.js';
import { DatasetRequiredError } from './qa-suite.js';
import { EVICTION_POLICIES } from './selector.js';
import { Artifacts, artifactsOf, COMPUTE_CONCURRENCY, checkArtifacts, computeBase } from './step-config.js';
import type { EvalCase } from './types.js';

/** The suite's name, as RunStarted records it. */
export const GRADE_SUITE = 'memory-eviction-grade';

/** The run config of a grade run: what the statistics need, the QA run graded, and the hashes a resume must match. */
export const GradeStepConfig = z
  .object({
    ...baseConfigShape,
    protocolId: z.string(),
    artifacts: Artifacts,
    qaRunId: RunId.describe('The run-qa run whose answers are graded'),
    answersScripted: z.boolean().describe("Whether evalog's scripted model gave the answers (the files say so)"),
    protocolStatus: QaProtocolRecord.shape.status.describe('What the protocol is (pinned, unpinned, evalog offline variant): the files say so'),
    graderVersion: z.string(),
    qaCapacity: z.number().int().min(1),
    bootstrap: z.object({ seed: z.number().int(), iterations: z.number().int().min(1), alpha: z.number().gt(0).lt(1) }).strict(),
  })
  .strict();
/** The validated run config. */
export type GradeStepConfig = z.infer<typeof GradeStepConfig>;

/** The answers a new grade run plans from: the QA run, whether it was scripted, its verified rows. */
export interface GradedAnswers {
  qaRunId: string;
  scripted: boolean;
  rows: readonly AnswerRow[];
}

/** What grade-qa binds the suite to; `answers` only when planning a new run (a recorded plan holds them). */
export interface GradeContext {
  protocol: Protocol;
  cases: readonly EvalCase[];
  datasetSha256: string;
  answers: GradedAnswers | null;
}

/** A planned grade run's id: the QA run's with `-grade`. */
export function gradeRunId(qaRunId: string): string {
  return `${qaRunId}-grade`;
}

/** The run config for a protocol, dataset and QA run. */
export function gradeStepConfig(ctx: GradeContext, answers: GradedAnswers): GradeStepConfig {
  const cfg = ctx.protocol.config;
  return {
    ...computeBase(COMPUTE_CONCURRENCY),
    protocolId: cfg.protocol_id,
    artifacts: artifactsOf(ctx.protocol, ctx.datasetSha256),
    qaRunId: answers.qaRunId,
    answersScripted: answers.scripted,
    protocolStatus: protocolStatus(ctx.protocol.source),
    graderVersion: cfg.qa.grader_version,
    qaCapacity: cfg.pool.qa_capacity,
    bootstrap: { seed: cfg.statistics.bootstrap_seed, iterations: cfg.statistics.bootstrap_iterations, alpha: cfg.statistics.alpha },
  };
}

/** A grade job's answer as its plan recorded it: the prediction is all the grader reads of it. */
function predictionOf(meta: Record<string, unknown> | undefined, jobId: string): string | null {
  const p = meta?.prediction;
  if (p === null || typeof p === 'string') return p;
  throw new TypeError(`grade job ${jobId}: its plan holds no answer row`);
}

/** The grade suite's definition (its hooks, typed); `ctx` null = unbound: its outputs fold any log, it cannot run. */
export function memoryEvictionGradeDefinition(ctx: GradeContext | null): SuiteDefinition<GradeStepConfig, EvalCase, never> {
  const need = () => {
    if (!ctx) throw new DatasetRequiredError();
    return ctx;
  };
  const answers = () => {
    const a = need().answers;
    if (!a) throw new TypeError('a new grade run is planned from the answers of its QA run');
    return a;
  };
  return {
    name: GRADE_SUITE,
    description: 'memory-eviction grade-qa: every answer of a run-qa run graded blind (deterministic-overlap-v1, no model)',
    shape: 'compute',
    manifests: PROTOCOL_MANIFESTS,
    configSchema: GradeStepConfig,
    get defaults() {
      return gradeStepConfig(need(), answers());
    },
    async prepare(config) {
      const bound = need();
      checkArtifacts('grade-qa', config.artifacts, artifactsOf(bound.protocol, bound.datasetSha256));
      return { cases: bound.cases.map((c): CaseSpec<EvalCase> => ({ id: c.case_id, data: c })) };
    },
    arms: () => [...EVICTION_POLICIES],
    // The answer row of the QA job of the same case and policy, verified against the protocol.
    jobMeta: (c, arm) => {
      const rowId = `${c.id}__${arm}`;
      const row = answers().rows.find((r) => r.row_id === rowId);
      if (!row) throw new TypeError(`no verified answer row ${rowId}`);
      return row;
    },
    // Blind: the grader is given the prediction and the reference answer, nothing of the policy or the row.
    compute: { compute: (c, job) => ({ ...gradeFields(predictionOf(job.meta, job.jobId), c.data.answer) }) },
    outputs: gradeOutputs,
  };
}

/** The grade suite, bound to a protocol and dataset (or unbound, for its outputs only). */
export function memoryEvictionGradeSuite(ctx: GradeContext | null): DefinedSuite {
  return defineSuite(memoryEvictionGradeDefinition(ctx));
}

import { fromPromise } from 'xstate';
import type { GradeInput } from '../suite/types.js';
import type { JobOutput } from '../kernel/env.js';
import { callName, JobShapeError, type JobInput } from '../kernel/ports.js';
import { gradeAndRecord, type GradePorts } from '../grader/grade.js';
import { recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';
import { callWithRetries } from '../provider/call.js';
import type { ProviderCallInput, ProviderCallOutput } from '../provider/machine.js';
import { afterPosting } from '../kernel/journal.js';

// A job of one call is the everyday eval, so it is one promise actor: start and call, then grade
// and end, in order, with no machine around them. As a machine of three states with a promise
// actor per step it made three actors, four snapshots and a relayed done event per job, about a
// quarter of evalog's own CPU per job on a 5000-job run (bench/hot-path.ts, bench/README.md). The
// steps, their order and the events are those of recordJob, callWithRetries and gradeAndRecord;
// the decisions stay in their pure deciders (decideJob, decideProvider, decideGrade).

/** The job's two effectful steps, replaceable in tests (`singleCallJob(steps)`). */
export interface SingleCallSteps {
  /** Records JobStarted (posted) and makes the call with its retries. */
  startAndCall(input: { start: RecordJobInput; call: ProviderCallInput }): Promise<ProviderCallOutput>;
  /** Grades the answer (its events posted) and records JobSucceeded with the grade. */
  gradeAndEnd(input: GradePorts & { work: GradeInput; signal: AbortSignal }): Promise<{ passed: boolean }>;
}

/** The steps a run uses. */
export const SINGLE_CALL_STEPS: SingleCallSteps = {
  // The start and the grade are posted: each goes to the log in one append with the event that
  // follows it at once (the call's request; the job's end), a durable round trip fewer each.
  async startAndCall(input) {
    await recordJob({ ...input.start, post: true });
    return afterPosting(input.start.journal.scope, () => callWithRetries(input.call));
  },
  async gradeAndEnd(input) {
    const { passed } = await gradeAndRecord(input, input.work, { post: true });
    await afterPosting(input.journal.scope, () => recordJob({ journal: input.journal, signal: input.signal, cmd: { type: 'Succeed', passed } }));
    return { passed };
  },
};

/**
 * A job of one model call (the answerer): start, call with retries, then record the outcome. A suite
 * with `grade` has the answer graded right away (its grade events precede JobSucceeded); one without
 * is graded in a later step, from the call's success event, which carries the answer.
 */
export function singleCallJob(steps: SingleCallSteps = SINGLE_CALL_STEPS) {
  return fromPromise<JobOutput, JobInput>(async ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'single-call') throw new JobShapeError('single-call', h.shape);
    const { job, journal, provider } = input;
    const signal = provider.signal;
    const req = h.call.request();
    // An arm may name its own model (the dataset suite's model arms); otherwise the endpoint's.
    const port = req.model === undefined ? provider : { ...provider, model: req.model };
    const out = await steps.startAndCall({
      start: { journal, signal, cmd: { type: 'Start', job } },
      call: {
        journal,
        provider: port,
        site: { actor: `job/${journal.jobId}/answerer`, name: callName(journal, 'answer'), attribution: 'main' },
        messages: req.messages,
        tools: req.tools,
        ...(req.params ? { params: req.params } : {}),
        ...(req.strictReply ? { strictReply: true } : {}),
      },
    });
    const o = out.state.outcome;
    if (!o?.ok) {
      const cmd: JobCommand = { type: 'Fail', reason: 'provider_failed', message: o?.data.message ?? 'no outcome' };
      await recordJob({ journal, signal, cmd });
      return { jobId: job.jobId, status: 'failed' };
    }
    if (!h.grade) {
      await recordJob({ journal, signal, cmd: { type: 'Succeed', passed: null } });
      return { jobId: job.jobId, status: 'succeeded' };
    }
    await steps.gradeAndEnd({ journal, provider, grade: h.grade, work: { final: null, first: null, answer: o.data.content ?? '' }, signal });
    return { jobId: job.jobId, status: 'succeeded' };
  });
}

/** The single-call job actor of every run (the coordinator's JOB_MACHINES entry). */
export const singleCallJobMachine = singleCallJob();

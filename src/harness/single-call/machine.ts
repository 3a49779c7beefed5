import { assign, fromPromise, setup } from 'xstate';
import type { PlannedJob } from '../../events/index.js';
import type { GradeInput } from '../suite/types.js';
import type { GradeHook, SingleCallHooks } from '../suite/define.js';
import type { JobOutput } from '../kernel/env.js';
import { callName, JobShapeError, type JobInput, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { gradeAndRecord, type GradePorts } from '../grader/grade.js';
import { recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';
import { callWithRetries } from '../provider/call.js';
import type { ProviderCallInput, ProviderCallOutput } from '../provider/machine.js';
import { afterPosting } from '../kernel/journal.js';
import { rethrow } from '../kernel/shared.js';

// A job of one call is the everyday eval, so its effects run as two promise actors rather than as
// child machines: the start and the call in one, the grade and the end in the other (an actor and
// a transition of this machine per step cost ~4 % of a one-call run's CPU, bench/README.md). The
// steps, their order and the events are those of recordJob, callWithRetries and gradeAndRecord.

export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  call: SingleCallHooks;
  grade: GradeHook | null;
  command: JobCommand;
  /** The answer to grade, set when the call succeeded and the suite grades at once. */
  answer: string | null;
}

/**
 * A job of one model call (the answerer): start, call with retries, then record the outcome. A suite
 * with `grade` has the answer graded right away (its grade events precede JobSucceeded); one without
 * is graded in a later step, from the call's success event, which carries the answer.
 */
export const singleCallJobMachine = setup({
  types: {} as { input: JobInput; context: Ctx; output: JobOutput },
  actors: {
    // The start and the grade are posted: each goes to the log in one append with the event that
    // follows it at once (the call's request; the job's end), a durable round trip fewer each.
    startAndCall: fromPromise<ProviderCallOutput, { start: RecordJobInput; call: ProviderCallInput }>(async ({ input }) => {
      await recordJob({ ...input.start, post: true });
      return afterPosting(input.start.journal.scope, () => callWithRetries(input.call));
    }),
    gradeAndEnd: fromPromise<{ passed: boolean }, GradePorts & { work: GradeInput; signal: AbortSignal }>(async ({ input }) => {
      const { passed } = await gradeAndRecord(input, input.work, { post: true });
      await afterPosting(input.journal.scope, () => recordJob({ journal: input.journal, signal: input.signal, cmd: { type: 'Succeed', passed } }));
      return { passed };
    }),
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
  guards: {
    gradeNow: ({ context }) => context.answer !== null,
  },
}).createMachine({
  id: 'single-call-job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'single-call') throw new JobShapeError('single-call', h.shape);
    const { job, journal, provider } = input;
    return { job, journal, provider, call: h.call, grade: h.grade, command: { type: 'Start', job }, answer: null };
  },
  initial: 'calling',
  states: {
    calling: {
      invoke: {
        src: 'startAndCall',
        input: ({ context: { journal, provider, call, command } }) => {
          const req = call.request();
          // An arm may name its own model (the dataset suite's model arms); otherwise the endpoint's.
          const port = req.model === undefined ? provider : { ...provider, model: req.model };
          return {
            start: { journal, signal: provider.signal, cmd: command },
            call: {
              journal,
              provider: port,
              site: { actor: `job/${journal.jobId}/answerer`, name: callName(journal, 'answer'), attribution: 'main' as const },
              messages: req.messages,
              tools: req.tools,
              ...(req.params ? { params: req.params } : {}),
              ...(req.strictReply ? { strictReply: true } : {}),
            },
          };
        },
        onDone: {
          target: 'answered',
          actions: assign(({ context, event }) => {
            const o = event.output.state.outcome;
            if (!o?.ok) return { command: { type: 'Fail', reason: 'provider_failed', message: o?.data.message ?? 'no outcome' } as JobCommand };
            return { command: { type: 'Succeed', passed: null } as JobCommand, answer: context.grade ? (o.data.content ?? '') : null };
          }),
        },
        onError: 'crashed',
      },
    },
    answered: {
      always: [{ guard: 'gradeNow', target: 'grading' }, { target: 'ending' }],
    },
    grading: {
      invoke: {
        src: 'gradeAndEnd',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          grade: c.grade!,
          work: { final: null, first: null, answer: c.answer },
          signal: c.provider.signal,
        }),
        onDone: { target: 'done', actions: assign({ command: ({ event }): JobCommand => ({ type: 'Succeed', passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: {
        src: 'record',
        input: ({ context: c }) => ({ journal: c.journal, signal: c.provider.signal, cmd: c.command }),
        onDone: 'done',
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.job.jobId, status: context.command.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

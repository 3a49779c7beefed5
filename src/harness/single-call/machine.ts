import { assign, fromPromise, setup } from 'xstate';
import type { GradeInput } from '../suite/types.js';
import type { JobEnv, JobOutput } from '../env.js';
import { gradeAndRecord } from '../grader/grade.js';
import { recordJob, type JobCommand } from '../job-lifecycle.js';
import { callWithRetries } from '../provider/call.js';
import type { ProviderCallInput, ProviderCallOutput } from '../provider/machine.js';
import { caseOf, rethrow } from '../shared.js';

// A job of one call is the everyday eval, so its effects run as two promise actors (callWithRetries,
// gradeAndRecord) rather than as child machines; the steps, their order and the events are theirs.

export interface Ctx {
  env: JobEnv;
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
  types: {} as { input: { env: JobEnv }; context: Ctx; output: JobOutput },
  actors: {
    providerCall: fromPromise<ProviderCallOutput, ProviderCallInput>(({ input }) => callWithRetries(input)),
    grader: fromPromise<{ passed: boolean }, { env: JobEnv; work: GradeInput }>(({ input }) => gradeAndRecord(input.env, input.work)),
    record: fromPromise<void, { env: JobEnv; cmd: JobCommand }>(({ input }) => recordJob(input.env, input.cmd)),
  },
  guards: {
    gradeNow: ({ context }) => context.answer !== null,
  },
}).createMachine({
  id: 'single-call-job',
  context: ({ input }) => ({ env: input.env, command: { type: 'Start', job: input.env.job }, answer: null }),
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command }), onDone: 'calling', onError: 'crashed' },
    },
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context: { env } }) => {
          const req = env.suite.singleCallRequest!(caseOf(env), env.job, env.config);
          // An arm may name its own model (the dataset suite's model arms); otherwise the endpoint's.
          const callEnv = req.model === undefined ? env : { ...env, model: req.model };
          return { env: callEnv, site: { actor: `job/${env.job.jobId}/answerer`, name: 'answer', attribution: 'main' as const }, messages: req.messages, tools: req.tools };
        },
        onDone: {
          target: 'answered',
          actions: assign(({ context, event }) => {
            const o = event.output.state.outcome;
            if (!o?.ok) return { command: { type: 'Fail', reason: 'provider_failed', message: o?.data.message ?? 'no outcome' } as JobCommand };
            return { command: { type: 'Succeed', passed: null } as JobCommand, answer: context.env.suite.grade ? (o.data.content ?? '') : null };
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
        src: 'grader',
        input: ({ context }) => ({ env: context.env, work: { final: null, first: null, answer: context.answer } }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }): JobCommand => ({ type: 'Succeed', passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command }), onDone: 'done', onError: 'crashed' },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.env.job.jobId, status: context.command.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

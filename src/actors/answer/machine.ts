import { assign, fromPromise, setup } from 'xstate';
import type { JobEnv } from '../env.js';
import type { JobOutput } from '../job/machine.js';
import { recordJob, type JobCommand } from '../job/logic.js';
import { providerCallMachine } from '../provider/machine.js';
import { caseOf, rethrow } from '../shared.js';

interface Ctx {
  env: JobEnv;
  command: JobCommand;
}

/**
 * A job of one model call (the answerer), graded in a later step: start, call with retries,
 * then record the outcome. The call's success event carries the answer.
 */
export const singleCallJobMachine = setup({
  types: {} as { input: { env: JobEnv }; context: Ctx; output: JobOutput },
  actors: {
    providerCall: providerCallMachine,
    record: fromPromise<void, { env: JobEnv; cmd: JobCommand }>(({ input }) => recordJob(input.env, input.cmd)),
  },
}).createMachine({
  id: 'single-call-job',
  context: ({ input }) => ({ env: input.env, command: { type: 'Start', job: input.env.job } }),
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
          return { env, site: { actor: `job/${env.job.jobId}/answerer`, name: 'answer', attribution: 'main' as const }, messages: req.messages, tools: req.tools };
        },
        onDone: {
          target: 'ending',
          actions: assign({
            command: ({ event }): JobCommand => {
              const o = event.output.state.outcome;
              return o?.ok ? { type: 'Succeed', passed: null } : { type: 'Fail', reason: 'provider_failed', message: o?.data.message ?? 'no outcome' };
            },
          }),
        },
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

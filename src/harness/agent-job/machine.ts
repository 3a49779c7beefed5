import { agentHooks } from '../suite/types.js';
import { assign, fromPromise, setup } from 'xstate';
import type { JobEnv, JobOutput } from '../env.js';
import { graderMachine } from '../grader/machine.js';
import { parentMachine } from '../parent/machine.js';
import { caseOf, rethrow } from '../shared.js';
import { initialWorkerState, type WorkerState } from '../worker/logic.js';
import { workerMachine } from '../worker/machine.js';
import { recordJob, type JobCommand } from '../job-lifecycle.js';

export interface Ctx {
  env: JobEnv;
  worker: WorkerState | null;
  command: JobCommand | null;
}


/** One job: parent → worker → grader, each an invoked child machine; failures are recorded outcomes. */
export const jobMachine = setup({
  types: {} as { input: { env: JobEnv }; context: Ctx; output: JobOutput },
  actors: {
    parent: parentMachine,
    worker: workerMachine,
    grader: graderMachine,
    record: fromPromise<void, { env: JobEnv; cmd: JobCommand }>(({ input }) => recordJob(input.env, input.cmd)),
  },
}).createMachine({
  id: 'job',
  context: ({ input }) => ({ env: input.env, worker: null, command: { type: 'Start', job: input.env.job } }),
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command! }), onDone: 'parent', onError: 'crashed' },
    },
    parent: {
      invoke: {
        src: 'parent',
        input: ({ context }) => ({ env: context.env }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'worker',
            actions: assign({
              worker: ({ context: { env }, event }) => {
                const out = event.output as Extract<typeof event.output, { ok: true }>;
                const req = agentHooks(env.suite).workerRequest(caseOf(env), env.job.arm, out.brief, env.config);
                return initialWorkerState(req.messages, req.tools, Date.parse(out.at));
              },
            }),
          },
          {
            target: 'ending',
            actions: assign({
              command: ({ event }) => {
                const out = event.output as Extract<typeof event.output, { ok: false }>;
                return { type: 'Fail' as const, reason: out.reason, message: out.message };
              },
            }),
          },
        ],
        onError: 'crashed',
      },
    },
    worker: {
      invoke: {
        src: 'worker',
        input: ({ context }) => ({ env: context.env, state: context.worker! }),
        onDone: [
          {
            guard: ({ event }) => event.output.stopped === 'provider_failed',
            target: 'ending',
            actions: assign({ command: ({ event }) => ({ type: 'Fail' as const, reason: 'provider_failed' as const, message: event.output.lastFailure?.message ?? 'worker call failed' }) }),
          },
          { target: 'grading', actions: assign({ worker: ({ event }) => event.output }) },
        ],
        onError: 'crashed',
      },
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context }) => ({ env: context.env, work: { final: context.worker!.artifact, first: context.worker!.firstArtifact, answer: context.worker!.answer } }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }) => ({ type: 'Succeed' as const, passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: context.command! }), onDone: 'done', onError: 'crashed' },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.env.job.jobId, status: context.command?.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

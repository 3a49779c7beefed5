import { assign, fromPromise, setup } from 'xstate';
import type { PlannedJob } from '../../events/index.js';
import type { JobOutput } from '../kernel/env.js';
import { JobShapeError, type JobInput, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import type { AgentHooks, GradeHook } from '../suite/define.js';
import type { WorkerLimits } from '../suite/types.js';
import { graderMachine } from '../grader/machine.js';
import { parentMachine } from '../parent/machine.js';
import { rethrow } from '../kernel/shared.js';
import { initialWorkerState, type WorkerState } from '../worker/logic.js';
import { workerMachine } from '../worker/machine.js';
import { recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';

export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  provider: ProviderPort;
  agent: AgentHooks;
  grade: GradeHook;
  limits: WorkerLimits;
  worker: WorkerState | null;
  command: JobCommand | null;
}

const recordInput = (c: Ctx): RecordJobInput => ({ journal: c.journal, signal: c.provider.signal, cmd: c.command! });

/** One job: parent → worker → grader, each an invoked child machine; failures are recorded outcomes. */
export const jobMachine = setup({
  types: {} as { input: JobInput; context: Ctx; output: JobOutput },
  actors: {
    parent: parentMachine,
    worker: workerMachine,
    grader: graderMachine,
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
}).createMachine({
  id: 'job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'agent') throw new JobShapeError('agent', h.shape);
    const { job, journal, provider, limits } = input;
    return { job, journal, provider, limits, agent: h.agent, grade: h.grade, worker: null, command: { type: 'Start', job } };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => recordInput(context), onDone: 'parent', onError: 'crashed' },
    },
    parent: {
      invoke: {
        src: 'parent',
        input: ({ context }) => ({ journal: context.journal, provider: context.provider, agent: context.agent }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'worker',
            actions: assign({
              worker: ({ context, event }) => {
                const out = event.output as Extract<typeof event.output, { ok: true }>;
                const req = context.agent.workerRequest(out.brief, out.acceptanceCriteria ?? null);
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
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          runTool: c.agent.runTool,
          limits: c.limits,
          stopRule: c.agent.stopRule,
          state: c.worker!,
        }),
        onDone: [
          {
            guard: ({ event }) => event.output.stopped === 'provider_failed',
            target: 'ending',
            actions: assign({
              command: ({ event }) => ({
                type: 'Fail' as const,
                reason: 'provider_failed' as const,
                message: event.output.lastFailure?.message ?? 'worker call failed',
              }),
            }),
          },
          { target: 'grading', actions: assign({ worker: ({ event }) => event.output }) },
        ],
        onError: 'crashed',
      },
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context }) => ({
          journal: context.journal,
          provider: context.provider,
          grade: context.grade,
          work: { final: context.worker!.artifact, first: context.worker!.firstArtifact, answer: context.worker!.answer },
        }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }) => ({ type: 'Succeed' as const, passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: { src: 'record', input: ({ context }) => recordInput(context), onDone: 'done', onError: 'crashed' },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.job.jobId, status: context.command?.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

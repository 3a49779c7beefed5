import { assign, enqueueActions, fromPromise, setup, stopChild } from 'xstate';
import type { DataOf, PlannedJob } from '../../events/index.js';
import { EndOfRecording, RunInterrupted } from '../errors.js';
import type { JobOutput, RunEnv } from '../env.js';
import { singleCallJobMachine } from '../single-call/machine.js';
import { jobMachine } from '../agent-job/machine.js';
import { sessionJobMachine } from '../session/job.js';
import { rethrow } from '../shared.js';
import { decideRun, type RunCommand, type RunProgress } from './logic.js';

/** Input of the coordinator: the environment and the `RunStarted` data (its plan). */
export interface RunInput {
  env: RunEnv;
  started: DataOf<'RunStarted'>;
}

/** How the run ended: completed (RunCompleted recorded) or not (resumable from the log). */
export interface RunOutput {
  status: 'completed' | 'interrupted';
  progress: RunProgress;
}

export interface Ctx extends RunInput {
  status: RunOutput['status'];
  /** Index in the plan of the next job to start: an index, not a shrinking copy, keeps dispatch O(1) on 10 000-job runs. */
  next: number;
  progress: RunProgress;
  /** Errors of jobs that crashed (bugs, determinism violations), in the order they ended. */
  errors: unknown[];
}

/** Several jobs crashed; `errors` holds each job's error. */
export class JobsCrashedError extends Error {
  override name = 'JobsCrashedError';
  constructor(readonly errors: readonly unknown[]) {
    super(`${errors.length} jobs crashed; first: ${(errors[0] as Error)?.message ?? String(errors[0])}`);
  }
}

const emitRun = (env: RunEnv, cmd: RunCommand) =>
  Promise.all(decideRun(cmd).map((d) => env.journal.scope(undefined).emit('run', d))).then(() => undefined);

/**
 * The run coordinator: records the plan, then keeps a window of at most `concurrency` job actors
 * alive (never all jobs at once), starting the next in plan order as each one ends.
 */
export const runMachine = setup({
  types: {} as { input: RunInput; context: Ctx; output: RunOutput },
  actors: {
    job: jobMachine,
    singleCallJob: singleCallJobMachine,
    sessionJob: sessionJobMachine,
    record: fromPromise<void, { env: RunEnv; cmd: RunCommand }>(({ input }) => emitRun(input.env, input.cmd)),
    // A job run by a worker elsewhere: queued, and done when its end is in the log.
    remoteJob: fromPromise<JobOutput, { env: RunEnv; job: PlannedJob }>(({ input }) => input.env.remote!.run(input.job, input.env.signal)),
  },
  guards: {
    idle: ({ context }) => context.progress.running === 0,
    // Jobs left undone (by an interrupt) make the run resumable rather than complete.
    unfinished: ({ context }) => context.next < context.started.jobs.length || context.progress.interrupted > 0 || context.progress.incomplete > 0,
  },
  actions: {
    dispatch: enqueueActions(({ context, enqueue }) => {
      const jobs = context.started.jobs;
      let next = context.next;
      let running = context.progress.running;
      const halted = context.errors.length > 0 || context.progress.interrupted > 0 || context.env.signal.aborted;
      const window = context.env.remote?.window ?? context.env.config.concurrency;
      while (!halted && running < window && next < jobs.length) {
        const job = jobs[next++]!;
        running += 1;
        if (context.env.remote) {
          enqueue.spawnChild('remoteJob', { id: job.jobId, input: { env: context.env, job } });
          continue;
        }
        const env = { ...context.env, job, scope: context.env.journal.scope(job.jobId) };
        const shape = context.env.suite.jobShape;
        enqueue.spawnChild(shape === 'single-call' ? 'singleCallJob' : shape === 'session' ? 'sessionJob' : 'job', { id: job.jobId, input: { env } });
      }
      enqueue.assign({ next, progress: { ...context.progress, queued: jobs.length - next, running } });
    }),
  },
}).createMachine({
  id: 'run',
  context: ({ input }) => ({
    ...input,
    status: 'interrupted',
    next: 0,
    progress: { queued: input.started.jobs.length, running: 0, succeeded: 0, failed: 0, interrupted: 0, incomplete: 0 },
    errors: [],
  }),
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'record', input: ({ context }) => ({ env: context.env, cmd: { type: 'Start', data: context.started } }), onDone: 'running', onError: 'crashed' },
    },
    running: {
      entry: ['dispatch'],
      always: { guard: 'idle', target: 'settling' },
      on: {
        'xstate.done.actor.*': {
          target: 'running',
          reenter: true,
          actions: [
            assign(({ context, event }) => {
              const out = (event as unknown as { output: JobOutput }).output;
              const p = context.progress;
              return { progress: { ...p, running: p.running - 1, [out.status]: p[out.status] + 1 } };
            }),
            stopChild(({ event }) => event.type.slice('xstate.done.actor.'.length)),
          ],
        },
        'xstate.error.actor.*': {
          target: 'running',
          reenter: true,
          actions: [
            assign(({ context, event }) => {
              const error = (event as unknown as { error: unknown }).error;
              const p = { ...context.progress, running: context.progress.running - 1 };
              if (error instanceof RunInterrupted) return { progress: { ...p, interrupted: p.interrupted + 1 } };
              // Replay met the end of a job's record: that job is unfinished in the log, not wrong.
              if (error instanceof EndOfRecording) return { progress: { ...p, incomplete: p.incomplete + 1 } };
              return { progress: p, errors: [...context.errors, error] };
            }),
            stopChild(({ event }) => event.type.slice('xstate.error.actor.'.length)),
          ],
        },
      },
    },
    settling: {
      always: [
        { guard: ({ context }) => context.errors.length > 0, target: 'failed' },
        { guard: 'unfinished', target: 'interrupted' },
        { target: 'completing' },
      ],
    },
    completing: {
      invoke: {
        src: 'record',
        input: ({ context }) => ({ env: context.env, cmd: { type: 'Complete', jobsSucceeded: context.progress.succeeded, jobsFailed: context.progress.failed } }),
        onDone: 'completed',
        onError: 'crashed',
      },
    },
    completed: { type: 'final', entry: assign({ status: 'completed' as const }) },
    interrupted: { type: 'final' },
    failed: {
      type: 'final',
      entry: ({ context }) => {
        throw context.errors.length === 1 ? context.errors[0] : new JobsCrashedError(context.errors);
      },
    },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ status: context.status, progress: context.progress }),
});

import { assign, enqueueActions, fromPromise, setup, stopChild } from 'xstate';
import type { DataOf, PlannedJob } from '../../events/index.js';
import { EndOfRecording, RunInterrupted } from '../kernel/errors.js';
import type { JobOutput, RemoteJobs } from '../kernel/env.js';
import type { ScopeJournal } from '../kernel/journal.js';
import type { JobInput } from '../kernel/ports.js';
import type { JobKind } from '../suite/define.js';
import { rethrow } from '../kernel/shared.js';
import { JOB_MACHINES } from './jobs.js';
import { decideRun, type RunCommand, type RunProgress } from './logic.js';
import { breakerStart, noteJobEnd, type BreakerOptions, type BreakerState } from './breaker.js';

/** Where the jobs of a run run: here (a window of job actors of one shape) or on workers elsewhere. */
export type JobRunner =
  | { kind: 'local'; jobKind: JobKind; window: number; inputOf(job: PlannedJob): JobInput }
  /** Set when workers run the jobs; the coordinator then only queues them and waits. */
  | { kind: 'remote'; remote: RemoteJobs };

/** Input of the coordinator: the run's journal scope, where its jobs run, and the `RunStarted` data (its plan). */
export interface RunInput {
  /** The run's own scope of the journal (run-level events). */
  runScope: ScopeJournal;
  jobs: JobRunner;
  signal: AbortSignal;
  started: DataOf<'RunStarted'>;
  /**
   * Set for a retry's pass (`evalog retry`): it records RunReopened instead of RunStarted, runs only
   * `started.jobs` (the retried ones), and its RunCompleted counts the other jobs' last outcomes too.
   */
  reopen?: { data: DataOf<'RunReopened'>; others: { succeeded: number; failed: number } };
  /** Stop after this many failed jobs in a row (absent = never). */
  breaker?: BreakerOptions;
}

/** How the run ended: completed (RunCompleted recorded) or not (resumable from the log). */
export interface RunOutput {
  status: 'completed' | 'interrupted';
  progress: RunProgress;
  /** Set when the breaker stopped the run: how many jobs in a row had failed. */
  halted?: { consecutiveFailures: number };
}

export interface Ctx extends RunInput {
  status: RunOutput['status'];
  /** Index in the plan of the next job to start: an index, not a shrinking copy, keeps dispatch O(1) on 10 000-job runs. */
  next: number;
  progress: RunProgress;
  /** Errors of jobs that crashed (bugs, determinism violations), in the order they ended. */
  errors: unknown[];
  /** Job slots (child actor ids "0", "1", …) free for the next job, and how many slots exist. */
  slots: { free: readonly number[]; made: number };
  breakerState: BreakerState;
}

/** Several jobs crashed; `errors` holds each job's error. */
export class JobsCrashedError extends Error {
  override name = 'JobsCrashedError';
  constructor(readonly errors: readonly unknown[]) {
    super(`${errors.length} jobs crashed; first: ${(errors[0] as Error)?.message ?? String(errors[0])}`);
  }
}

// A job actor's id is the slot it runs in, not its job id. XState copies the coordinator's
// children object at every spawn and stop; with a job id per child every copy had a new set of
// keys, so V8 built a new hidden class of up to `window` properties per job (about 80 µs a job at
// 64 in flight, 8 % of a 10 000-case run's CPU). A slot's id is its number ("0", "1", …): integer
// keys live in the object's elements, which a copy takes in one go and a stop's `delete` leaves
// fast, where named keys (`slot-N`, tried first) put the object in dictionary mode at the first
// stop and made each later copy about three times dearer (bench/README.md).
const slotOf = (childId: string) => Number(childId);
/** The child id in a done or error event's type (`xstate.done.actor.<id>`). */
const childOf = (type: string) => type.slice(type.indexOf('.actor.') + '.actor.'.length);

const emitRun = (scope: ScopeJournal, cmd: RunCommand) => Promise.all(decideRun(cmd).map((d) => scope.emit('run', d))).then(() => undefined);

/** The slots after the job in the child of a done or error event ended. */
function freed(context: Ctx, type: string): Ctx['slots'] {
  return { free: [...context.slots.free, slotOf(childOf(type))], made: context.slots.made };
}

/**
 * The run coordinator: records the plan, then keeps a window of at most `concurrency` job actors
 * alive (never all jobs at once), starting the next in plan order as each one ends.
 */
export const runMachine = setup({
  types: {} as { input: RunInput; context: Ctx; output: RunOutput },
  actors: {
    ...JOB_MACHINES,
    record: fromPromise<void, { scope: ScopeJournal; cmd: RunCommand }>(({ input }) => emitRun(input.scope, input.cmd)),
    // A job run by a worker elsewhere: queued, and done when its end is in the log.
    remoteJob: fromPromise<JobOutput, { remote: RemoteJobs; job: PlannedJob; signal: AbortSignal }>(({ input }) => input.remote.run(input.job, input.signal)),
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
      const halted = context.breakerState.tripped || context.errors.length > 0 || context.progress.interrupted > 0 || context.signal.aborted;
      const runner = context.jobs;
      const window = runner.kind === 'remote' ? runner.remote.window : runner.window;
      const free = [...context.slots.free];
      let made = context.slots.made;
      while (!halted && running < window && next < jobs.length) {
        const job = jobs[next++]!;
        running += 1;
        const id = String(free.pop() ?? made++);
        if (runner.kind === 'remote') enqueue.spawnChild('remoteJob', { id, input: { remote: runner.remote, job, signal: context.signal } });
        else enqueue.spawnChild(runner.jobKind, { id, input: runner.inputOf(job) });
      }
      enqueue.assign({ next, progress: { ...context.progress, queued: jobs.length - next, running }, slots: { free, made } });
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
    slots: { free: [], made: 0 },
    breakerState: breakerStart(input.breaker),
  }),
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        src: 'record',
        input: ({ context }) => ({
          scope: context.runScope,
          cmd: context.reopen ? { type: 'Reopen', data: context.reopen.data } : { type: 'Start', data: context.started },
        }),
        onDone: 'running',
        onError: 'crashed',
      },
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
              // The wildcard's event is not narrowed by XState; a child job's done event carries its JobOutput.
              const out = (event as { output?: JobOutput }).output!;
              const p = context.progress;
              return {
                progress: { ...p, running: p.running - 1, [out.status]: p[out.status] + 1 },
                breakerState: noteJobEnd(context.breakerState, out.jobId, out.status),
                slots: freed(context, event.type),
              };
            }),
            stopChild(({ event }) => childOf(event.type)),
          ],
        },
        'xstate.error.actor.*': {
          target: 'running',
          reenter: true,
          actions: [
            assign(({ context, event }) => {
              const error = (event as { error?: unknown }).error;
              const p = { ...context.progress, running: context.progress.running - 1 };
              const slots = freed(context, event.type);
              if (error instanceof RunInterrupted) return { progress: { ...p, interrupted: p.interrupted + 1 }, slots };
              // Replay met the end of a job's record: that job is unfinished in the log, not wrong.
              if (error instanceof EndOfRecording) return { progress: { ...p, incomplete: p.incomplete + 1 }, slots };
              return { progress: p, errors: [...context.errors, error], slots };
            }),
            stopChild(({ event }) => childOf(event.type)),
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
        input: ({ context }) => ({
          scope: context.runScope,
          cmd: {
            type: 'Complete',
            jobsSucceeded: context.progress.succeeded + (context.reopen?.others.succeeded ?? 0),
            jobsFailed: context.progress.failed + (context.reopen?.others.failed ?? 0),
          },
        }),
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
  output: ({ context }) => ({
    status: context.status,
    progress: context.progress,
    ...(context.status === 'interrupted' && context.breakerState.tripped ? { halted: { consecutiveFailures: context.breakerState.streak } } : {}),
  }),
});

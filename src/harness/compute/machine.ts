import { assign, fromPromise, setup } from 'xstate';
import type { PlannedJob } from '../../events/index.js';
import type { ComputeHooks } from '../suite/define.js';
import type { JobOutput } from '../kernel/env.js';
import { RunInterrupted } from '../kernel/errors.js';
import { JobShapeError, type JobInput, type JobJournal } from '../kernel/ports.js';
import { recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';
import { rethrow } from '../kernel/shared.js';
import { decideComputed } from './logic.js';

/** The compute job machine's context (exported: the run machine's declarations name it). */
export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  compute: ComputeHooks;
  signal: AbortSignal;
  command: JobCommand;
}

/** What the run machine gives a compute job besides its plan. */
export interface ComputeInput {
  journal: JobJournal;
  compute: ComputeHooks;
  signal: AbortSignal;
}

/** Runs the suite's computation and records its result; at an interrupt nothing new is started. */
async function computeAndRecord({ journal, compute, signal }: ComputeInput): Promise<void> {
  if (!journal.scope.replaying && signal.aborted) throw new RunInterrupted();
  const output = await compute.compute();
  for (const d of decideComputed(output)) await journal.scope.emit(`job/${journal.jobId}/compute`, d);
}

/**
 * A job without a model: start, compute (a pure function of the case, plan and config), record the
 * result, succeed. Replay and resume compute it again and compare the result with the logged one;
 * a job whose events are logged appends nothing again.
 */
export const computeJobMachine = setup({
  types: {} as { input: JobInput; context: Ctx; output: JobOutput },
  actors: {
    compute: fromPromise<void, ComputeInput>(({ input }) => computeAndRecord(input)),
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
}).createMachine({
  id: 'compute-job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'compute') throw new JobShapeError('compute', h.shape);
    return { job: input.job, journal: input.journal, compute: h.compute, signal: input.provider.signal, command: { type: 'Start', job: input.job } };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        src: 'record',
        input: ({ context: c }) => ({ journal: c.journal, signal: c.signal, cmd: c.command }),
        onDone: 'computing',
        onError: 'crashed',
      },
    },
    computing: {
      invoke: {
        src: 'compute',
        input: ({ context: c }) => ({ journal: c.journal, compute: c.compute, signal: c.signal }),
        onDone: { target: 'ending', actions: assign({ command: (): JobCommand => ({ type: 'Succeed', passed: null }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: {
        src: 'record',
        input: ({ context: c }) => ({ journal: c.journal, signal: c.signal, cmd: c.command }),
        onDone: 'done',
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.job.jobId, status: 'succeeded' }),
});

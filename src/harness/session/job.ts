import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { PlannedJob } from '../../events/index.js';
import type { GradeHook, SessionHooks } from '../suite/define.js';
import type { JobOutput } from '../kernel/env.js';
import { JobShapeError, type JobInput, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { graderMachine } from '../grader/machine.js';
import { decideJob, recordJob, type JobCommand, type RecordJobInput } from '../kernel/job-lifecycle.js';
import { rethrow } from '../kernel/shared.js';
import { rebuildSession, startState, WorkerKilled, type RebuildInput } from './effects.js';
import { evolveSession, type SessionState } from './logic.js';
import { sessionMachine } from './machine.js';

export interface Ctx {
  job: PlannedJob;
  journal: JobJournal;
  /** The provider port with the cell's frozen settings: the exact model id, sampling, timeouts and retries. */
  provider: ProviderPort;
  session: SessionHooks;
  grade: GradeHook;
  state: SessionState | null;
  command: JobCommand | null;
}

export interface StartInput {
  job: PlannedJob;
  journal: JobJournal;
  session: SessionHooks;
}

// JobStarted is the first event the session folds: its time starts the deadline, its seq the restart read.
async function start(input: StartInput): Promise<SessionState> {
  const { job, journal, session } = input;
  let state = startState(session);
  for (const d of decideJob({ type: 'Start', job, ...(journal.attempt === undefined ? {} : { attempt: journal.attempt }) }))
    state = evolveSession(session.evolveEnvironment)(state, (await journal.scope.emit(`job/${job.jobId}`, d)) as StoredEvent);
  return state;
}

/**
 * A session job: start, the session worker, the grader on the final environment, the end. When the
 * scenario kills the worker (`worker_restart`), a new worker is started from the fold of the job's
 * events read back from the log: nothing the old one recorded is done again.
 */
export const sessionJobMachine = setup({
  types: {} as { input: JobInput; context: Ctx; output: JobOutput },
  actors: {
    start: fromPromise<SessionState, StartInput>(({ input }) => start(input)),
    worker: sessionMachine,
    rebuild: fromPromise<SessionState, RebuildInput>(({ input }) => rebuildSession(input)),
    grader: graderMachine,
    record: fromPromise<void, RecordJobInput>(({ input }) => recordJob(input)),
  },
  guards: {
    killed: ({ event }) => (event as { error?: unknown }).error instanceof WorkerKilled,
  },
}).createMachine({
  id: 'session-job',
  context: ({ input }) => {
    const h = input.hooks;
    if (h.shape !== 'session') throw new JobShapeError('session', h.shape);
    const { settings } = h.session;
    const provider = { ...input.provider, model: settings.model, sampling: settings.sampling, policy: settings.provider };
    return { job: input.job, journal: input.journal, provider, session: h.session, grade: h.grade, state: null, command: null };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: {
        src: 'start',
        input: ({ context: c }) => ({ job: c.job, journal: c.journal, session: c.session }),
        onDone: { target: 'working', actions: assign({ state: ({ event }) => event.output }) },
        onError: 'crashed',
      },
    },
    working: {
      invoke: {
        src: 'worker',
        input: ({ context: c }) => ({ journal: c.journal, provider: c.provider, session: c.session, state: c.state! }),
        onDone: [
          {
            guard: ({ event }) => event.output.stopped === 'provider_failed',
            target: 'ending',
            actions: assign({
              command: ({ event }) => ({
                type: 'Fail' as const,
                reason: 'provider_failed' as const,
                message: event.output.lastFailure?.message ?? 'main call failed',
              }),
            }),
          },
          { target: 'grading', actions: assign({ state: ({ event }) => event.output }) },
        ],
        onError: [{ guard: 'killed', target: 'restarting' }, { target: 'crashed' }],
      },
    },
    restarting: {
      invoke: {
        src: 'rebuild',
        input: ({ context: c }) => ({ journal: c.journal, session: c.session, fromSeq: c.state!.fromSeq }),
        onDone: { target: 'working', actions: assign({ state: ({ event }) => event.output }) },
        onError: 'crashed',
      },
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          grade: c.grade,
          work: { final: null, first: null, answer: c.state!.answer, environment: c.state!.environment },
        }),
        onDone: { target: 'ending', actions: assign({ command: ({ event }) => ({ type: 'Succeed' as const, passed: event.output.passed }) }) },
        onError: 'crashed',
      },
    },
    ending: {
      invoke: {
        src: 'record',
        input: ({ context: c }) => ({ journal: c.journal, signal: c.provider.signal, cmd: c.command! }),
        onDone: 'done',
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => ({ jobId: context.job.jobId, status: context.command?.type === 'Succeed' ? 'succeeded' : 'failed' }),
});

import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { SessionSettings } from '../suite/types.js';
import type { JobEnv, JobOutput } from '../env.js';
import { graderMachine } from '../grader/machine.js';
import { decideJob, recordJob, type JobCommand } from '../job-lifecycle.js';
import { rethrow } from '../shared.js';
import { rebuildSession, startState, WorkerKilled } from './effects.js';
import { evolveSession, type SessionState } from './logic.js';
import { sessionMachine } from './machine.js';
import type { SessionInput } from './record.js';

export interface Ctx {
  env: JobEnv;
  spec: SessionInput['spec'];
  settings: SessionSettings;
  state: SessionState | null;
  command: JobCommand | null;
}

/** The job env with its cell's frozen settings: the exact model id, sampling, timeouts and retries. */
function cellEnv(env: JobEnv, settings: SessionSettings): JobEnv {
  return { ...env, model: settings.model, config: { ...env.config, model: settings.sampling, provider: settings.provider } };
}

// JobStarted is the first event the session folds: its time starts the deadline, its seq the restart read.
async function start(input: { env: JobEnv; spec: SessionInput['spec'] }): Promise<SessionState> {
  const { env, spec } = input;
  let state = startState(env, spec);
  for (const d of decideJob({ type: 'Start', job: env.job })) state = evolveSession(spec.evolveEnvironment)(state, (await env.scope.emit(`job/${env.job.jobId}`, d)) as StoredEvent);
  return state;
}

/**
 * A session job: start, the session worker, the grader on the final environment, the end. When the
 * scenario kills the worker (`worker_restart`), a new worker is started from the fold of the job's
 * events read back from the log: nothing the old one recorded is done again.
 */
export const sessionJobMachine = setup({
  types: {} as { input: { env: JobEnv }; context: Ctx; output: JobOutput },
  actors: {
    start: fromPromise<SessionState, { env: JobEnv; spec: SessionInput['spec'] }>(({ input }) => start(input)),
    worker: sessionMachine,
    rebuild: fromPromise<SessionState, { env: JobEnv; spec: SessionInput['spec']; fromSeq: number }>(({ input }) => rebuildSession(input)),
    grader: graderMachine,
    record: fromPromise<void, { env: JobEnv; cmd: JobCommand }>(({ input }) => recordJob(input.env, input.cmd)),
  },
  guards: {
    killed: ({ event }) => (event as { error?: unknown }).error instanceof WorkerKilled,
  },
}).createMachine({
  id: 'session-job',
  context: ({ input }) => {
    const spec = input.env.suite.session;
    if (!spec) throw new Error(`suite ${input.env.suite.name} has jobShape "session" but no session spec`);
    const settings = spec.settings(input.env.config, input.env.job.arm);
    return { env: cellEnv(input.env, settings), spec, settings, state: null, command: null };
  },
  initial: 'starting',
  states: {
    starting: {
      invoke: { src: 'start', input: ({ context }) => ({ env: context.env, spec: context.spec }), onDone: { target: 'working', actions: assign({ state: ({ event }) => event.output }) }, onError: 'crashed' },
    },
    working: {
      invoke: {
        src: 'worker',
        input: ({ context: c }) => ({ env: c.env, spec: c.spec, settings: c.settings, state: c.state! }),
        onDone: [
          {
            guard: ({ event }) => event.output.stopped === 'provider_failed',
            target: 'ending',
            actions: assign({ command: ({ event }) => ({ type: 'Fail' as const, reason: 'provider_failed' as const, message: event.output.lastFailure?.message ?? 'main call failed' }) }),
          },
          { target: 'grading', actions: assign({ state: ({ event }) => event.output }) },
        ],
        onError: [{ guard: 'killed', target: 'restarting' }, { target: 'crashed' }],
      },
    },
    restarting: {
      invoke: {
        src: 'rebuild',
        input: ({ context: c }) => ({ env: c.env, spec: c.spec, fromSeq: c.state!.fromSeq }),
        onDone: { target: 'working', actions: assign({ state: ({ event }) => event.output }) },
        onError: 'crashed',
      },
    },
    grading: {
      invoke: {
        src: 'grader',
        input: ({ context: c }) => ({ env: c.env, work: { final: null, first: null, answer: c.state!.answer, environment: c.state!.environment } }),
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

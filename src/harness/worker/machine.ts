import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { AgentHooks } from '../suite/define.js';
import type { WorkerStopRule } from '../suite/stop-rule.js';
import type { WorkerLimits } from '../suite/types.js';
import { callName, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { providerCallMachine } from '../provider/machine.js';
import { rethrow } from '../kernel/shared.js';
import { nextStep, runTools, stopWorker, workerActor } from './effects.js';
import { evolveWorker, type WorkerState, type WorkerStep } from './logic.js';

/** Input of the worker: its ports, the tool hook, its limits and its initial state (messages from the handoff). */
export interface WorkerInput {
  journal: JobJournal;
  provider: ProviderPort;
  runTool: AgentHooks['runTool'];
  /** The harness's limits, as the run's config records them. */
  limits: WorkerLimits;
  /** The suite's own limit (AgentSpec.stopRule), asked before the harness's; absent = none. */
  stopRule?: WorkerStopRule | undefined;
  state: WorkerState;
}

export interface Ctx extends WorkerInput {
  step: WorkerStep;
  /** Aborted when the worker's deadline passes: the worker's calls stop on it. */
  deadline: AbortController;
}

/** Input of the deadline timer. */
export interface DeadlineInput {
  ms: number;
  deadline: AbortController;
}

const fold = (state: WorkerState, events: readonly StoredEvent[]) => events.reduce(evolveWorker, state);

/** The worker's agent loop: model turn, tools, repeat, until it answers or a limit stops it. */
export const workerMachine = setup({
  types: {} as { input: WorkerInput; context: Ctx; output: WorkerState },
  actors: {
    providerCall: providerCallMachine,
    // The worker's hard deadline, from its start. Stopping the machine (the worker ended first)
    // aborts `signal`, which ends the wait and leaves the deadline unfired.
    // The timer is a watchdog, not work: unref'd, so a run that ends without stopping this worker
    // (a replay that stops at a divergence) does not keep the process alive until the deadline.
    deadline: fromPromise<void, DeadlineInput>(
      ({ input, signal }) =>
        new Promise<void>((resolve) => {
          if (signal.aborted) return resolve();
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(() => {
            signal.removeEventListener('abort', done);
            input.deadline.abort();
            resolve();
          }, input.ms);
          timer.unref();
          signal.addEventListener('abort', done, { once: true });
        }),
    ),
    tools: fromPromise<StoredEvent[], { journal: JobJournal; runTool: AgentHooks['runTool']; state: WorkerState }>(({ input }) => runTools(input)),
    stop: fromPromise<
      StoredEvent[],
      { journal: JobJournal; state: WorkerState; reason: Extract<WorkerStep, { type: 'stop' }>['reason']; stopRule: WorkerStopRule | undefined }
    >(({ input }) => stopWorker(input)),
  },
  guards: {
    is: ({ context }, type: WorkerStep['type']) => context.step.type === type,
  },
}).createMachine({
  id: 'worker',
  context: ({ input }) => {
    const deadline = new AbortController();
    return { ...input, deadline, step: nextStep({ ...input, deadline: deadline.signal }) };
  },
  // Runs for the worker's whole life. On resume the worker runs again from its start, so a resumed
  // job's worker gets its time anew from there (the time the process was down is not counted).
  invoke: { src: 'deadline', input: ({ context }) => ({ ms: context.limits.timeLimitMs, deadline: context.deadline }) },
  initial: 'deciding',
  states: {
    deciding: {
      always: [
        { guard: { type: 'is', params: 'call' }, target: 'calling' },
        { guard: { type: 'is', params: 'tools' }, target: 'tooling' },
        { guard: { type: 'is', params: 'stop' }, target: 'stopping' },
        { target: 'done' },
      ],
    },
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context }) => ({
          journal: context.journal,
          provider: { ...context.provider, deadline: context.deadline.signal },
          site: {
            actor: workerActor(context.journal),
            name: callName(context.journal, `worker/turn-${context.state.turns + 1}`),
            attribution: 'child' as const,
          },
          messages: context.state.messages,
          tools: context.state.tools,
        }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output.events)) },
        onError: 'crashed',
      },
    },
    tooling: {
      invoke: {
        src: 'tools',
        input: ({ context }) => ({ journal: context.journal, runTool: context.runTool, state: context.state }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output)) },
        onError: 'crashed',
      },
    },
    stopping: {
      invoke: {
        src: 'stop',
        input: ({ context }) => ({
          journal: context.journal,
          state: context.state,
          reason: (context.step as Extract<WorkerStep, { type: 'stop' }>).reason,
          stopRule: context.stopRule,
        }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output)) },
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }) => context.state,
});

function advance(context: Ctx, events: readonly StoredEvent[]): Partial<Ctx> {
  const state = fold(context.state, events);
  return {
    state,
    step: nextStep({ journal: context.journal, state, limits: context.limits, stopRule: context.stopRule, deadline: context.deadline.signal }),
  };
}

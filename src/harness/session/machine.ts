import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { Injection } from '../suite/types.js';
import { providerCallMachine } from '../provider/machine.js';
import { rethrow } from '../kernel/shared.js';
import { recordInjections, runSessionTools, stopSession } from './effects.js';
import { evolveSession, nextSessionStep, type SessionState, type SessionStep } from './logic.js';
import { callPort, sessionActor, type SessionInput } from './record.js';
import { callName } from '../kernel/ports.js';

export interface Ctx extends SessionInput {
  step: SessionStep;
}

type StopStep = Extract<SessionStep, { type: 'stop' }>;

// The injections due between batches come from the suite (pure), so the step is too.
function stepOf(input: SessionInput): SessionStep {
  const { session, state } = input;
  const due = state.pending.length === 0 ? session.injectionsDue(state.environment, state.fired, { type: 'turn' }) : [];
  return nextSessionStep(state, session.settings, due);
}

function advance(context: Ctx, events: readonly StoredEvent[]): Partial<Ctx> {
  const state = events.reduce(evolveSession(context.session.evolveEnvironment), context.state);
  return { state, step: stepOf({ ...context, state }) };
}

/**
 * A session worker: the main agent loop on a fixture environment. Main calls (attribution `main`),
 * tool batches (which may run queries), injections between batches, and a budget checked before
 * every main call; it ends when the agent submits or answers, or a limit stops it.
 */
export const sessionMachine = setup({
  types: {} as { input: SessionInput; context: Ctx; output: SessionState },
  actors: {
    providerCall: providerCallMachine,
    tools: fromPromise<StoredEvent[], SessionInput>(({ input }) => runSessionTools(input)),
    inject: fromPromise<StoredEvent[], SessionInput & { injections: readonly Injection[] }>(({ input }) => recordInjections(input)),
    stop: fromPromise<StoredEvent[], SessionInput & Pick<StopStep, 'reason' | 'budget'>>(({ input }) => stopSession(input)),
  },
  guards: {
    is: ({ context }, type: SessionStep['type']) => context.step.type === type,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ ...input, step: stepOf(input) }),
  initial: 'deciding',
  states: {
    deciding: {
      always: [
        { guard: { type: 'is', params: 'call' }, target: 'calling' },
        { guard: { type: 'is', params: 'tools' }, target: 'tooling' },
        { guard: { type: 'is', params: 'inject' }, target: 'injecting' },
        { guard: { type: 'is', params: 'stop' }, target: 'stopping' },
        { target: 'done' },
      ],
    },
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: callPort(c.provider, c.state, c.session, (c.step as Extract<SessionStep, { type: 'call' }>).maxAttempts),
          site: { actor: sessionActor(c.journal), name: callName(c.journal, `worker/turn-${c.state.turns + 1}`), attribution: 'main' as const },
          messages: c.state.messages,
          tools: c.state.tools,
        }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output.events)) },
        onError: 'crashed',
      },
    },
    tooling: {
      invoke: {
        src: 'tools',
        input: ({ context: c }) => ({ journal: c.journal, provider: c.provider, session: c.session, state: c.state }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output)) },
        onError: 'crashed',
      },
    },
    injecting: {
      invoke: {
        src: 'inject',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          session: c.session,
          state: c.state,
          injections: (c.step as Extract<SessionStep, { type: 'inject' }>).injections,
        }),
        onDone: { target: 'deciding', actions: assign(({ context, event }) => advance(context, event.output)) },
        onError: 'crashed',
      },
    },
    stopping: {
      invoke: {
        src: 'stop',
        input: ({ context: c }) => ({
          journal: c.journal,
          provider: c.provider,
          session: c.session,
          state: c.state,
          reason: (c.step as StopStep).reason,
          budget: (c.step as StopStep).budget,
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

import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import type { CallSite, JobEnv } from '../env.js';
import { runAttempt, type AttemptInput } from './effects.js';
import { evolveProvider, initialProviderState, nextProviderStep, type ProviderState, type ProviderStep } from './logic.js';

/** Input of one logical model call (all its attempts). */
export interface ProviderCallInput {
  env: JobEnv;
  site: CallSite;
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/** The call's final outcome, with every event it emitted. */
export interface ProviderCallOutput {
  state: ProviderState;
  events: StoredEvent[];
}

export interface Ctx extends ProviderCallInput {
  state: ProviderState;
  events: StoredEvent[];
  step: ProviderStep;
}

/** One logical model call: attempts with backoff per the retry policy; each attempt is an invoked effect. */
export const providerCallMachine = setup({
  types: {} as { input: ProviderCallInput; context: Ctx; output: ProviderCallOutput },
  actors: {
    attempt: fromPromise<StoredEvent[], AttemptInput>(({ input }) => runAttempt(input)),
    backoff: fromPromise<void, { env: JobEnv; ms: number }>(async ({ input }) => {
      // A replayed wait is already over: the next attempt is in the record.
      if (!input.env.scope.replaying) await input.env.sleep(input.ms, input.env.signal);
    }),
  },
  guards: {
    shouldAttempt: ({ context }) => context.step.type === 'attempt',
  },
}).createMachine({
  id: 'provider',
  context: ({ input }) => {
    const policy = { ...input.env.config.provider };
    return { ...input, state: initialProviderState, events: [], step: nextProviderStep(initialProviderState, input.site, policy) };
  },
  initial: 'waiting',
  states: {
    waiting: {
      invoke: {
        src: 'backoff',
        input: ({ context }) => ({ env: context.env, ms: context.step.type === 'attempt' ? context.step.delayMs : 0 }),
        onDone: 'attempting',
        onError: { target: 'crashed' },
      },
    },
    attempting: {
      invoke: {
        src: 'attempt',
        input: ({ context }) => {
          const step = context.step as Extract<ProviderStep, { type: 'attempt' }>;
          return { env: context.env, site: context.site, messages: context.messages, tools: context.tools, callId: step.callId, attempt: step.attempt, retryOf: step.retryOf };
        },
        onDone: {
          target: 'deciding',
          actions: assign(({ context, event }) => {
            const state = event.output.reduce(evolveProvider, context.state);
            return { state, events: [...context.events, ...event.output], step: nextProviderStep(state, context.site, context.env.config.provider) };
          }),
        },
        onError: { target: 'crashed' },
      },
    },
    deciding: {
      always: [{ guard: 'shouldAttempt', target: 'waiting' }, { target: 'done' }],
    },
    done: { type: 'final' },
    // Programming errors and determinism violations end the machine with an error for the job to report.
    crashed: {
      type: 'final',
      entry: ({ event }) => {
        throw (event as { error?: unknown }).error;
      },
    },
  },
  output: ({ context }) => ({ state: context.state, events: context.events }),
});

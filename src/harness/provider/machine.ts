import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { NativeRequest } from '../../providers/caller.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';
import type { CallSite } from '../kernel/env.js';
import type { JobJournal, ProviderPort } from '../kernel/ports.js';
import { runAttempt, waitSignal, type AttemptInput } from './effects.js';
import { evolveProvider, initialProviderState, nextProviderStep, type ProviderState, type ProviderStep } from './logic.js';

/** Input of one logical model call (all its attempts). */
export interface ProviderCallInput {
  journal: JobJournal;
  provider: ProviderPort;
  site: CallSite;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Parameters sent as they are instead of the port's sampling (an external agent's own request fields). */
  params?: Record<string, unknown>;
  /** A tool the model must call (sent as `tool_choice`); absent = the model chooses. */
  toolChoice?: string;
  /** A reply without a string content, or a body that is not a chat completion, fails without retry. */
  strictReply?: boolean;
  /** A pass-through call: this body goes to the endpoint's route of its protocol, unchanged (messages, tools, params unused). */
  native?: NativeRequest;
}

/** The call's final outcome, with every event it emitted. */
export interface ProviderCallOutput {
  state: ProviderState;
  events: StoredEvent[];
}

/** Input of a wait before an attempt. */
export interface BackoffInput {
  journal: JobJournal;
  provider: ProviderPort;
  ms: number;
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
    backoff: fromPromise<void, BackoffInput>(async ({ input }) => {
      // A replayed wait is already over: the next attempt is in the record.
      if (!input.journal.scope.replaying) await input.provider.sleep(input.ms, waitSignal(input.provider));
    }),
  },
  guards: {
    shouldAttempt: ({ context }) => context.step.type === 'attempt',
  },
}).createMachine({
  id: 'provider',
  context: ({ input }) => {
    const policy = { ...input.provider.policy };
    return { ...input, state: initialProviderState, events: [], step: nextProviderStep(initialProviderState, input.site, policy) };
  },
  initial: 'waiting',
  states: {
    waiting: {
      invoke: {
        src: 'backoff',
        input: ({ context }) => ({ journal: context.journal, provider: context.provider, ms: context.step.type === 'attempt' ? context.step.delayMs : 0 }),
        onDone: 'attempting',
        onError: { target: 'crashed' },
      },
    },
    attempting: {
      invoke: {
        src: 'attempt',
        input: ({ context }) => {
          const step = context.step as Extract<ProviderStep, { type: 'attempt' }>;
          return {
            journal: context.journal,
            provider: context.provider,
            site: context.site,
            messages: context.messages,
            tools: context.tools,
            ...(context.params ? { params: context.params } : {}),
            ...(context.toolChoice ? { toolChoice: context.toolChoice } : {}),
            ...(context.strictReply ? { strictReply: true } : {}),
            ...(context.native ? { native: context.native } : {}),
            callId: step.callId,
            attempt: step.attempt,
            retryOf: step.retryOf,
          };
        },
        onDone: {
          target: 'deciding',
          actions: assign(({ context, event }) => {
            const state = event.output.reduce(evolveProvider, context.state);
            return { state, events: [...context.events, ...event.output], step: nextProviderStep(state, context.site, context.provider.policy) };
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

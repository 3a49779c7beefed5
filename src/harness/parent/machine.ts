import { agentHooks } from '../suite/types.js';
import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { Delegation } from '../suite/types.js';
import type { JobEnv } from '../env.js';
import { providerCallMachine } from '../provider/machine.js';
import { caseOf, rethrow } from '../shared.js';
import { decideDelegation, evolveParent, initialParentState, type ParentState } from './logic.js';

/** What the parent hands on: the brief, or why there is none. */
export type ParentOutput =
  | { ok: true; brief: string; at: string }
  | { ok: false; reason: 'parent_no_task' | 'parent_bad_task' | 'provider_failed'; message: string };

export interface Ctx {
  env: JobEnv;
  state: ParentState;
  delegation: Delegation | null;
  delegatedAt: string | null;
}

const parentActor = (env: JobEnv) => `job/${env.job.jobId}/parent`;

/** The lead agent: one model call with the `task` tool, then the handoff to the worker. */
export const parentMachine = setup({
  types: {} as { input: { env: JobEnv }; context: Ctx; output: ParentOutput },
  actors: {
    providerCall: providerCallMachine,
    delegate: fromPromise<StoredEvent[], { env: JobEnv; delegation: Delegation }>(async ({ input }) => {
      const out: StoredEvent[] = [];
      for (const d of decideDelegation(input.delegation)) out.push(await input.env.scope.emit(parentActor(input.env), d));
      return out;
    }),
  },
  guards: {
    replied: ({ context }) => context.state.reply !== null,
  },
}).createMachine({
  id: 'parent',
  context: ({ input }) => ({ env: input.env, state: initialParentState, delegation: null, delegatedAt: null }),
  initial: 'calling',
  states: {
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context: { env } }) => {
          const req = agentHooks(env.suite).parentRequest(caseOf(env), env.job.arm, env.config);
          return { env, site: { actor: parentActor(env), name: 'parent/turn-1', attribution: 'main' as const }, messages: req.messages, tools: req.tools };
        },
        onDone: {
          target: 'settled',
          actions: assign(({ context, event }) => {
            const state = event.output.events.reduce(evolveParent, context.state);
            const delegation = state.reply ? agentHooks(context.env.suite).acceptDelegation(state.reply.toolCalls, context.env.job.arm) : null;
            return { state, delegation };
          }),
        },
        onError: 'crashed',
      },
    },
    settled: { always: [{ guard: 'replied', target: 'delegating' }, { target: 'done' }] },
    delegating: {
      invoke: {
        src: 'delegate',
        input: ({ context }) => ({ env: context.env, delegation: context.delegation! }),
        onDone: {
          target: 'done',
          actions: assign(({ context, event }) => ({ state: event.output.reduce(evolveParent, context.state), delegatedAt: event.output[0]?.at ?? null })),
        },
        onError: 'crashed',
      },
    },
    done: { type: 'final' },
    crashed: { type: 'final', entry: rethrow },
  },
  output: ({ context }): ParentOutput => {
    const { state, delegation, delegatedAt } = context;
    if (!state.reply) return { ok: false, reason: 'provider_failed', message: state.failure?.message ?? 'parent call failed' };
    if (!delegation || !delegation.ok) return { ok: false, reason: delegation?.reason ?? 'parent_no_task', message: delegation?.message ?? 'no delegation' };
    return { ok: true, brief: delegation.brief, at: delegatedAt! };
  },
});

import { assign, fromPromise, setup } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { Delegation } from '../suite/types.js';
import type { AgentHooks } from '../suite/define.js';
import { callName, type JobJournal, type ProviderPort } from '../kernel/ports.js';
import { providerCallMachine } from '../provider/machine.js';
import { rethrow } from '../kernel/shared.js';
import { decideDelegation, evolveParent, initialParentState, type ParentState } from './logic.js';

/** What the parent hands on: the brief, or why there is none. */
export type ParentOutput =
  | { ok: true; brief: string; acceptanceCriteria?: string[] | null; at: string }
  | { ok: false; reason: 'parent_no_task' | 'parent_bad_task' | 'provider_failed'; message: string };

/** What the parent uses: its job's journal scope, the provider port, and the agent hooks it calls. */
export interface ParentInput {
  journal: JobJournal;
  provider: ProviderPort;
  agent: Pick<AgentHooks, 'parentRequest' | 'acceptDelegation'>;
}

export interface Ctx extends ParentInput {
  state: ParentState;
  delegation: Delegation | null;
  delegatedAt: string | null;
}

const parentActor = (journal: JobJournal) => `job/${journal.jobId}/parent`;

/** The lead agent: one model call with the `task` tool, then the handoff to the worker. */
export const parentMachine = setup({
  types: {} as { input: ParentInput; context: Ctx; output: ParentOutput },
  actors: {
    providerCall: providerCallMachine,
    delegate: fromPromise<StoredEvent[], { journal: JobJournal; delegation: Delegation }>(async ({ input }) => {
      const out: StoredEvent[] = [];
      for (const d of decideDelegation(input.delegation)) out.push(await input.journal.scope.emit(parentActor(input.journal), d));
      return out;
    }),
  },
  guards: {
    replied: ({ context }) => context.state.reply !== null,
  },
}).createMachine({
  id: 'parent',
  context: ({ input }) => ({ ...input, state: initialParentState, delegation: null, delegatedAt: null }),
  initial: 'calling',
  states: {
    calling: {
      invoke: {
        src: 'providerCall',
        input: ({ context: { journal, provider, agent } }) => {
          const req = agent.parentRequest();
          return {
            journal,
            provider,
            site: { actor: parentActor(journal), name: callName(journal, 'parent/turn-1'), attribution: 'main' as const },
            messages: req.messages,
            tools: req.tools,
            ...(req.toolChoice ? { toolChoice: req.toolChoice } : {}),
          };
        },
        onDone: {
          target: 'settled',
          actions: assign(({ context, event }) => {
            const state = event.output.events.reduce(evolveParent, context.state);
            const delegation = state.reply ? context.agent.acceptDelegation(state.reply.toolCalls) : null;
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
        input: ({ context }) => ({ journal: context.journal, delegation: context.delegation! }),
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
    if (!delegation?.ok) return { ok: false, reason: delegation?.reason ?? 'parent_no_task', message: delegation?.message ?? 'no delegation' };
    return { ok: true, brief: delegation.brief, acceptanceCriteria: delegation.acceptanceCriteria ?? null, at: delegatedAt! };
  },
});

import { createActor, toPromise } from 'xstate';
import type { StoredEvent } from '../../events/index.js';
import type { ChatMessage } from '../../providers/chat.js';
import { RunInterrupted } from '../kernel/errors.js';
import type { Injection } from '../suite/types.js';
import type { ProviderState } from '../provider/logic.js';
import { providerCallMachine } from '../provider/machine.js';
import { evolveSession, queryAllowance, type SessionState } from './logic.js';
import { callPort, hostActor, recordSession, sessionActor, type SessionInput } from './record.js';

/** What the agent gets back for one query of a batch. */
export type QueryReply = { query: number; status: 'ok' | 'truncated'; reply: string } | { query: number; status: 'failed' | 'not_run'; error: string };

/**
 * Runs one query batch, one model call per query attributed `query`, in batch order: the journal
 * numbers a job's events in order, so sending them one after another keeps replay exact.
 * Injections alter the reply the agent gets, never the calls' own records. `by` is the actor of
 * the calls: the tool's caller (the session worker, or an external agent).
 */
export async function runQueries(
  input: SessionInput,
  toolName: string,
  queries: readonly { messages: ChatMessage[] }[],
  out: StoredEvent[],
  by: string = sessionActor(input.journal),
) {
  const { journal, session } = input;
  const fold = evolveSession(session.evolveEnvironment);
  let state: SessionState = input.state;
  const replies: QueryReply[] = [];
  for (const [i, q] of queries.entries()) {
    const allowance = queryAllowance(state, session.settings);
    if (allowance === 0) {
      replies.push({ query: i, status: 'not_run', error: 'the model-call budget or the deadline is spent' });
      continue;
    }
    if (!journal.scope.replaying && input.provider.signal.aborted) throw new RunInterrupted();
    const site = { actor: by, name: `${toolName}/query-${i}`, attribution: 'query' as const };
    const actor = createActor(providerCallMachine, {
      input: { journal, provider: callPort(input.provider, state, session, allowance), site, messages: q.messages, tools: [] },
    });
    actor.start();
    const call = await toPromise(actor);
    state = call.events.reduce(fold, state);
    out.push(...call.events);
    let reply = replyOf(i, call.state.outcome);
    for (const injection of session.injectionsDue(state.environment, state.fired, { type: 'query', batch: state.queryBatches, index: i })) {
      const target = call.state.lastCallId ?? site.name;
      state = await recordSession({ ...input, state }, hostActor(journal), { type: 'Inject', injection: { ...injection, target } }, out);
      reply = injected(reply, injection);
    }
    replies.push(reply);
  }
  return { state, replies };
}

function replyOf(query: number, outcome: ProviderState['outcome']): QueryReply {
  if (!outcome) return { query, status: 'failed', error: 'query failed: no outcome' };
  if (!outcome.ok) return { query, status: 'failed', error: `query failed: ${outcome.data.kind}` };
  return { query, status: outcome.data.finishReason === 'length' ? 'truncated' : 'ok', reply: outcome.data.content ?? '' };
}

// The agent sees a failed or cut reply, as it would from a provider; only FaultInjected says the harness did it.
function injected(reply: QueryReply, injection: Injection): QueryReply {
  if (injection.kind === 'query_failure') return { query: reply.query, status: 'failed', error: 'query failed: no reply' };
  if (injection.kind === 'query_truncation' && reply.status === 'ok') {
    return { ...reply, status: 'truncated', reply: [...reply.reply].slice(0, injection.keepChars ?? 0).join('') };
  }
  return reply;
}

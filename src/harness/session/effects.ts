import type { StoredEvent } from '../../events/index.js';
import type { CaseSpec, Injection } from '../suite/types.js';
import type { JobEnv } from '../env.js';
import { caseOf } from '../shared.js';
import { evolveSession, initialSessionState, toolCallName, type SessionCommand, type SessionState } from './logic.js';
import { runQueries } from './queries.js';
import { hostActor, recordSession, sessionActor, type SessionInput } from './record.js';

/** The planned `worker_restart` fired: the worker actor dies here and the job rebuilds it from the log. */
export class WorkerKilled extends Error {
  override name = 'WorkerKilled';
  constructor(readonly injectionId: string) {
    super(`worker stopped by injection ${injectionId}`);
  }
}

/**
 * Runs the pending tool calls in batch order (replay compares them by causal name). After each,
 * the injections due mid-batch fire; a `worker_restart` kills the worker right there, after the
 * tool's effect is recorded and before the next tool of the batch runs.
 */
export async function runSessionTools(input: SessionInput): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const c = caseOf(input.env);
  let state = input.state;
  for (const call of input.state.pending) {
    const name = toolCallName(state, call);
    const outcome = input.spec.runTool(call.name, call.arguments, { case: c, environment: state.environment, queries: input.settings.queries });
    let result = outcome.result;
    if (outcome.queries && !outcome.isError) {
      const batch = await runQueries({ ...input, state }, name, outcome.queries, out);
      state = batch.state;
      result = JSON.stringify({ results: batch.replies });
    }
    const cmd: SessionCommand = { type: 'RecordTool', callId: name, call, result, isError: outcome.isError, effects: outcome.effects ?? [] };
    state = await recordSession({ ...input, state }, sessionActor(input.env), cmd, out);
    for (const injection of input.spec.injectionsDue(c, state.environment, state.fired, { type: 'tool' })) {
      state = await recordSession({ ...input, state }, hostActor(input.env), { type: 'Inject', injection }, out);
      if (injection.kind === 'worker_restart') throw new WorkerKilled(injection.id);
    }
  }
  return out;
}

/** Records the injections due between batches (a context switch replaces the conversation). */
export async function recordInjections(input: SessionInput & { injections: readonly Injection[] }): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let state = input.state;
  for (const injection of input.injections) state = await recordSession({ ...input, state }, hostActor(input.env), { type: 'Inject', injection }, out);
  return out;
}

type Stop = Extract<SessionCommand, { type: 'Stop' }>;

/** Records why the loop stopped: the budget that ran out, if one did, then WorkerStopped. */
export async function stopSession(input: SessionInput & Pick<Stop, 'reason' | 'budget'>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const cmd: Stop = { type: 'Stop', reason: input.reason, budget: input.budget, turns: input.state.turns, answer: input.state.answer };
  await recordSession(input, sessionActor(input.env), cmd, out);
  return out;
}

/** The session's state before its first event: the agent's start messages and the fixture environment. */
export function startState(env: JobEnv, spec: SessionInput['spec'], c: CaseSpec<unknown> = caseOf(env)): SessionState {
  const req = spec.request(c, env.job.arm, env.config);
  return initialSessionState(req.messages, req.tools, spec.initialEnvironment(c));
}

/**
 * A restarted worker's state: the fold of the job's own events as the log holds them, up to the
 * point this job has reached (in replay and resume the log may hold more).
 */
export async function rebuildSession(input: { env: JobEnv; spec: SessionInput['spec']; fromSeq: number }): Promise<SessionState> {
  const { env } = input;
  const own: StoredEvent[] = [];
  for await (const e of env.journal.log.read(env.journal.runId, { from: input.fromSeq })) if (e.jobId === env.job.jobId) own.push(e);
  return own.slice(0, env.scope.emitted).reduce(evolveSession(input.spec.evolveEnvironment), startState(env, input.spec));
}

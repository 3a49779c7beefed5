import type { StoredEvent, ToolCallRequest } from '../../events/index.js';
import type { Injection } from '../suite/types.js';
import type { SessionHooks } from '../suite/define.js';
import { callName, type JobJournal } from '../kernel/ports.js';
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

/** What one tool call of a session left: the state after its events, and the restart it ended on, if one fired. */
export interface SessionToolRun {
  state: SessionState;
  /** The `worker_restart` recorded after the call (nothing more was recorded after it), else null. */
  restart: Injection | null;
}

/**
 * One tool call of a session, the same for the built-in worker and an external agent: the suite's
 * tool on the environment, its queries run by the harness (`<name>/query-i`), ToolCalled and its
 * side effects recorded under `name` by `actor`, then the injections due after a tool. A
 * `worker_restart` stops it right there, after the tool's effect is recorded; what a restart does
 * to the agent is the caller's.
 */
export async function runSessionTool(
  input: SessionInput & { actor: string },
  name: string,
  call: ToolCallRequest,
  out: StoredEvent[],
): Promise<SessionToolRun> {
  const { journal, session, actor } = input;
  let state = input.state;
  const outcome = session.runTool(call.name, call.arguments, { environment: state.environment, queries: session.settings.queries });
  let result = outcome.result;
  if (outcome.queries && !outcome.isError) {
    const batch = await runQueries({ ...input, state }, name, outcome.queries, out, actor);
    state = batch.state;
    result = JSON.stringify({ results: batch.replies });
  }
  const cmd: SessionCommand = { type: 'RecordTool', callId: name, call, result, isError: outcome.isError, effects: outcome.effects ?? [] };
  state = await recordSession({ ...input, state }, actor, cmd, out);
  for (const injection of session.injectionsDue(state.environment, state.fired, { type: 'tool' })) {
    state = await recordSession({ ...input, state }, hostActor(journal), { type: 'Inject', injection }, out);
    if (injection.kind === 'worker_restart') return { state, restart: injection };
  }
  return { state, restart: null };
}

/**
 * Runs the pending tool calls in batch order (replay compares them by causal name). After each,
 * the injections due mid-batch fire; a `worker_restart` kills the worker right there, after the
 * tool's effect is recorded and before the next tool of the batch runs.
 */
export async function runSessionTools(input: SessionInput): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const actor = sessionActor(input.journal);
  let state = input.state;
  for (const call of input.state.pending) {
    const run = await runSessionTool({ ...input, state, actor }, callName(input.journal, toolCallName(state, call)), call, out);
    state = run.state;
    if (run.restart) throw new WorkerKilled(run.restart.id);
  }
  return out;
}

/** Records the injections due between batches (a context switch replaces the conversation). */
export async function recordInjections(input: SessionInput & { injections: readonly Injection[] }): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  let state = input.state;
  for (const injection of input.injections) state = await recordSession({ ...input, state }, hostActor(input.journal), { type: 'Inject', injection }, out);
  return out;
}

type Stop = Extract<SessionCommand, { type: 'Stop' }>;

/** Records why the loop stopped: the budget that ran out, if one did, then WorkerStopped. */
export async function stopSession(input: SessionInput & Pick<Stop, 'reason' | 'budget'>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  const cmd: Stop = { type: 'Stop', reason: input.reason, budget: input.budget, turns: input.state.turns, answer: input.state.answer };
  await recordSession(input, sessionActor(input.journal), cmd, out);
  return out;
}

/** The session's state before its first event: the agent's start messages and the fixture environment. */
export function startState(session: SessionHooks): SessionState {
  const req = session.request();
  return initialSessionState(req.messages, req.tools, session.initialEnvironment());
}

/**
 * A restarted worker's state: the fold of the job's own events as the log holds them, up to the
 * point this job has reached (in replay and resume the log may hold more).
 */
export async function rebuildSession(input: RebuildInput): Promise<SessionState> {
  const { journal, session } = input;
  const own: StoredEvent[] = [];
  for await (const e of journal.read(input.fromSeq)) if (e.jobId === journal.jobId) own.push(e);
  return own.slice(0, journal.scope.emitted).reduce(evolveSession(session.evolveEnvironment), startState(session));
}

/** Input of a restarted worker's rebuild. */
export interface RebuildInput {
  journal: JobJournal;
  session: SessionHooks;
  fromSeq: number;
}

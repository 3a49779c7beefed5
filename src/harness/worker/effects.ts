import { agentHooks } from '../suite/types.js';
import type { StoredEvent } from '../../events/index.js';
import type { JobEnv } from '../env.js';
import { caseOf } from '../shared.js';
import { decideWorker, evolveWorker, type WorkerCommand, type WorkerState } from './logic.js';

/** Actor path of the worker of a job. */
export const workerActor = (env: JobEnv) => `job/${env.job.jobId}/worker`;

/**
 * Runs the pending tool calls of one turn in their batch order, so replay compares them by name
 * (`worker/turn-N/tool-i`) and never depends on completion order.
 */
export async function runTools(input: { env: JobEnv; state: WorkerState }): Promise<StoredEvent[]> {
  const { env } = input;
  let state = input.state;
  const events: StoredEvent[] = [];
  const caseSpec = caseOf(env);
  for (const [i, call] of input.state.pending.entries()) {
    const outcome = await agentHooks(env.suite).runTool(call.name, call.arguments, { case: caseSpec, artifact: state.artifact, revision: state.revisions });
    const cmd: WorkerCommand = { type: 'RecordTool', callId: `worker/turn-${state.turns}/tool-${i}`, call, outcome, revision: state.revisions + 1 };
    for (const d of decideWorker(cmd)) {
      const e = await env.scope.emit(workerActor(env), d);
      state = evolveWorker(state, e);
      events.push(e);
    }
  }
  return events;
}

/** Records why the worker stopped. */
export async function stopWorker(input: { env: JobEnv; state: WorkerState; reason: Extract<WorkerCommand, { type: 'Stop' }>['reason'] }): Promise<StoredEvent[]> {
  const { env, state } = input;
  const out: StoredEvent[] = [];
  for (const d of decideWorker({ type: 'Stop', reason: input.reason, turns: state.turns, answer: state.answer })) {
    out.push(await env.scope.emit(workerActor(env), d));
  }
  return out;
}


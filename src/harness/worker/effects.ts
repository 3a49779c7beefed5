import type { StoredEvent } from '../../events/index.js';
import type { AgentHooks } from '../suite/define.js';
import { callName, type JobJournal } from '../kernel/ports.js';
import { decideWorker, evolveWorker, nextWorkerStep, stopAnswer, type WorkerCommand, type WorkerState, type WorkerStep } from './logic.js';
import type { WorkerStopRule } from '../suite/stop-rule.js';
import type { WorkerLimits } from '../suite/types.js';

/** Actor path of the worker of a job. */
export const workerActor = (journal: JobJournal) => `job/${journal.jobId}/worker`;

/**
 * Runs the pending tool calls of one turn in their batch order, so replay compares them by name
 * (`worker/turn-N/tool-i`) and never depends on completion order.
 */
export async function runTools(input: { journal: JobJournal; runTool: AgentHooks['runTool']; state: WorkerState }): Promise<StoredEvent[]> {
  const { journal } = input;
  let state = input.state;
  const events: StoredEvent[] = [];
  for (const [i, call] of input.state.pending.entries()) {
    const outcome = await input.runTool(call.name, call.arguments, { artifact: state.artifact, revision: state.revisions });
    const cmd: WorkerCommand = {
      type: 'RecordTool',
      callId: callName(journal, `worker/turn-${state.turns}/tool-${i}`),
      call,
      outcome,
      revision: state.revisions + 1,
    };
    for (const d of decideWorker(cmd)) {
      const e = await journal.scope.emit(workerActor(journal), d);
      state = evolveWorker(state, e);
      events.push(e);
    }
  }
  return events;
}

/** Records why the worker stopped. */
export async function stopWorker(input: {
  journal: JobJournal;
  state: WorkerState;
  reason: Extract<WorkerCommand, { type: 'Stop' }>['reason'];
  stopRule?: WorkerStopRule | undefined;
}): Promise<StoredEvent[]> {
  const { journal, state } = input;
  const out: StoredEvent[] = [];
  for (const d of decideWorker({ type: 'Stop', reason: input.reason, turns: state.turns, answer: stopAnswer(state, input.reason, input.stopRule) })) {
    out.push(await journal.scope.emit(workerActor(journal), d));
  }
  return out;
}

/**
 * The worker's next step with its deadline applied: once the deadline has passed, no call or tool
 * round starts; the worker stops. Live, the machine's timer says whether it has passed; while the
 * record lasts (replay, resume), the record does: the timer's firing is an effect like any other,
 * and its recorded outcome is the WorkerStopped (deadline) that follows.
 */
export function nextStep(input: {
  journal: JobJournal;
  state: WorkerState;
  limits: WorkerLimits;
  stopRule?: WorkerStopRule | undefined;
  deadline: AbortSignal;
}): WorkerStep {
  const step = nextWorkerStep(input.state, input.limits, input.stopRule);
  if (step.type !== 'call' && step.type !== 'tools') return step;
  const { scope } = input.journal;
  const next = scope.replaying ? scope.peek() : undefined;
  const passed = scope.replaying ? next?.type === 'WorkerStopped' && next.data.reason === 'deadline' : input.deadline.aborted;
  return passed ? { type: 'stop', reason: 'deadline' } : step;
}

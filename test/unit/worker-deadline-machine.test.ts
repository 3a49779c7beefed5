// The worker machine's deadline between steps (issue 16, C2): when the timer fires while no call is
// in flight (here, during a tool round), no new call or tool round starts and the worker stops with
// `deadline`, sending nothing more. The timer's firing is an effect: replay reads it from the
// record (the WorkerStopped that follows), so it re-emits the same events with no timer at all.
// Real Journal over the in-memory log; the model caller and the timer are the test's.
import { expect } from 'chai';
import { createActor, fromPromise, toPromise } from 'xstate';
import { steppingClock } from '../../src/core/clock.js';
import type { StoredEvent } from '../../src/events/index.js';
import { Journal } from '../../src/harness/kernel/journal.js';
import { jobJournal, type ProviderPort } from '../../src/harness/kernel/ports.js';
import type { DeadlineInput } from '../../src/harness/worker/machine.js';
import { initialWorkerState, workerMachine } from '../../src/harness/worker/index.js';
import { MemoryEventLog } from '../../src/log/memory/index.js';
import type { ModelCaller } from '../../src/providers/caller.js';
import { T0 } from '../support/build-events.js';

const RUN = 'deadline-machine';
const JOB = 'fruit:brief:1';
const limits = { turnCap: 8, timeLimitMs: 60_000 };

/** A model that asks for one lookup per call; counts what it was sent. */
function toolAsker(): ModelCaller & { calls: number } {
  const caller = {
    calls: 0,
    async call() {
      caller.calls++;
      const id = `t${caller.calls}`;
      return {
        ok: true as const,
        data: {
          content: null,
          toolCalls: [{ id, name: 'lookup', arguments: '{}' }],
          finishReason: 'tool_calls',
          usage: { prompt: 1, completion: 1, total: 2 },
          latencyMs: 1,
        },
      };
    },
  };
  return caller;
}

function port(caller: ModelCaller): ProviderPort {
  return {
    caller,
    model: 'm',
    sampling: { temperature: 0, maxTokens: 16 },
    seed: 1,
    policy: { maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0, timeoutMs: 1_000 },
    sleep: async () => {},
    signal: new AbortController().signal,
  };
}

async function runWorker(journal: Journal, caller: ModelCaller, deadline: (input: DeadlineInput) => Promise<void>, runTool: () => Promise<void>) {
  const machine = workerMachine.provide({ actors: { deadline: fromPromise<void, DeadlineInput>(({ input }) => deadline(input)) } });
  const actor = createActor(machine, {
    input: {
      journal: jobJournal(journal, JOB),
      provider: port(caller),
      runTool: async () => {
        await runTool();
        return { result: 'PRICE apple=1.25', isError: false };
      },
      limits,
      state: initialWorkerState([{ role: 'user', content: 'price the order' }], [], T0),
    },
  });
  actor.start();
  return toPromise(actor);
}

describe('worker machine: the deadline between steps', () => {
  it('fired during a tool round: no further call starts, the worker stops with deadline; replay re-emits it from the record', async () => {
    const log = MemoryEventLog.open();
    const caller = toolAsker();
    // The timer fires while the first tool runs (the call before it had returned).
    let fire: () => void = () => {};
    const fired = new Promise<void>((r) => (fire = r));
    const out = await runWorker(
      Journal.live(log, RUN, { clock: steppingClock(T0) }),
      caller,
      async (input) => {
        await fired;
        input.deadline.abort();
      },
      async () => fire(),
    );
    expect(out.stopped).to.equal('deadline');
    expect(caller.calls).to.equal(1);
    const recorded: StoredEvent[] = [];
    for await (const e of log.read(RUN)) recorded.push(e);
    expect(recorded.map((e) => e.type)).to.deep.equal(['ProviderCallRequested', 'ProviderCallSucceeded', 'ToolCalled', 'WorkerStopped']);
    expect(recorded.at(-1)!.data).to.deep.equal({ reason: 'deadline', turns: 1, answer: null });

    // Replay: a timer that never fires and a model that must not be called; the record decides.
    const never = toolAsker();
    const replayed = await runWorker(
      Journal.replay(log, RUN, new Map([[JOB, recorded]]), { clock: steppingClock(T0 + 1e6) }),
      never,
      () => new Promise<void>(() => {}),
      async () => {},
    );
    expect(replayed.stopped).to.equal('deadline');
    expect(never.calls).to.equal(0);
  });

  it('unfired, it leaves the worker alone: the same model goes on to the turn cap', async () => {
    const caller = toolAsker();
    const out = await runWorker(
      Journal.live(MemoryEventLog.open(), RUN, { clock: steppingClock(T0) }),
      caller,
      () => new Promise<void>(() => {}),
      async () => {},
    );
    expect([out.stopped, caller.calls]).to.deep.equal(['turn_cap', limits.turnCap]);
  });
});

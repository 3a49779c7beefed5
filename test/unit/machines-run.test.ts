// The run coordinator through XState with its jobs replaced by stubs: what it records (RunStarted,
// RunCompleted), how many jobs it keeps running at once, and how an interrupt or a crash ends it.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { DataOf, PlannedJob } from '../../src/events/index.js';
import type { JobOutput } from '../../src/harness/kernel/env.js';
import type { JobInput } from '../../src/harness/kernel/ports.js';
import type { JobHooks, Shape } from '../../src/app/index.js';
import type { jobMachine } from '../../src/harness/agent-job/machine.js';
import type { singleCallJobMachine } from '../../src/harness/single-call/machine.js';
import { planJobs } from '../../src/harness/run/logic.js';
import { runMachine as coordinator, type RunInput, type RunOutput } from '../../src/harness/run/machine.js';
import { RunInterrupted } from '../../src/harness/kernel/errors.js';
import { jobInput, RecordingJournal, runMachine, standIn, TEST_CONFIG } from '../support/machines.js';

const jobs: PlannedJob[] = planJobs(['c1', 'c2', 'c3'], ['a', 'b'], 1, 1, 1);
const started = (concurrency: number): DataOf<'RunStarted'> => ({
  suite: 'test-suite',
  config: { ...TEST_CONFIG, concurrency },
  configHash: 'a'.repeat(64),
  seed: 1,
  orderSeed: 1,
  jobs,
  model: { name: 'test-model', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
  concurrency,
  provenance: {},
});

// Hooks of each shape that no stub job calls: the coordinator only hands them on.
const unused = () => {
  throw new Error('a stub job calls no hook');
};
const HOOKS: { [S in Shape]: Extract<JobHooks, { shape: S }> } = {
  agent: { shape: 'agent', agent: { parentRequest: unused, acceptDelegation: unused, workerRequest: unused, runTool: unused }, grade: unused },
  'single-call': { shape: 'single-call', call: { request: unused }, grade: null },
  session: {
    shape: 'session',
    session: {
      settings: {
        model: 'test-model',
        sampling: TEST_CONFIG.model,
        provider: TEST_CONFIG.provider,
        budget: { mainCalls: 1, modelCalls: 1, deadlineMs: 1 },
        queries: false,
      },
      request: unused,
      initialEnvironment: unused,
      evolveEnvironment: unused,
      runTool: unused,
      injectionsDue: unused,
    },
    grade: unused,
  },
  compute: { shape: 'compute', compute: { compute: unused } },
};

/** The coordinator's input: jobs of one shape run here, `concurrency` at once. */
function runInput(shape: Shape, journal: RecordingJournal, concurrency: number): RunInput {
  return {
    runScope: journal.scope(undefined),
    signal: new AbortController().signal,
    started: started(concurrency),
    jobs: { kind: 'local', jobKind: shape, window: concurrency, inputOf: (job) => jobInput(HOOKS[shape], journal, { job }) },
  };
}

/** A stub job: resolves with `outcome(job)` (or throws it), counting how many run at once. */
function jobStub(outcome: (job: PlannedJob) => JobOutput['status'] | Error, seen: { order: string[]; running: number; most: number }) {
  return fromPromise<JobOutput, JobInput>(async ({ input }) => {
    const { job } = input;
    seen.order.push(job.jobId);
    seen.running += 1;
    seen.most = Math.max(seen.most, seen.running);
    await new Promise((r) => setImmediate(r));
    seen.running -= 1;
    const o = outcome(job);
    if (o instanceof Error) throw o;
    return { jobId: job.jobId, status: o };
  });
}

describe('machines: run coordinator (jobs replaced)', () => {
  it('records the plan, runs every job in plan order with at most `concurrency` at once, and records RunCompleted with the counts', async () => {
    const journal = new RecordingJournal();
    const seen = { order: [] as string[], running: 0, most: 0 };
    const machine = coordinator.provide({ actors: { agent: standIn<typeof jobMachine>(jobStub((j) => (j.arm === 'a' ? 'succeeded' : 'failed'), seen)) } });
    const r = await runMachine(machine, runInput('agent', journal, 2));
    expect(r.value).to.equal('completed');
    expect(seen.order).to.deep.equal(jobs.map((j) => j.jobId));
    expect(seen.most).to.equal(2);
    expect(r.output).to.deep.equal({
      status: 'completed',
      progress: { queued: 0, running: 0, succeeded: 3, failed: 3, interrupted: 0, incomplete: 0 },
    } satisfies RunOutput);
    expect(journal.emitted()).to.deep.equal([
      { actor: 'run', type: 'RunStarted', data: started(2) },
      { actor: 'run', type: 'RunCompleted', data: { status: 'completed', jobsSucceeded: 3, jobsFailed: 3 } },
    ]);
  });

  it("dispatches by the suite's job shape (the JOB_MACHINES table): a single-call suite's jobs run as single-call jobs", async () => {
    const seen = { order: [] as string[], running: 0, most: 0 };
    const agent = { order: [] as string[], running: 0, most: 0 };
    const machine = coordinator.provide({
      actors: {
        'single-call': standIn<typeof singleCallJobMachine>(jobStub(() => 'succeeded', seen)),
        agent: standIn<typeof jobMachine>(jobStub(() => 'succeeded', agent)),
      },
    });
    const r = await runMachine(machine, runInput('single-call', new RecordingJournal(), 8));
    expect(r.value).to.equal('completed');
    expect([seen.order.length, agent.order.length]).to.deep.equal([6, 0]);
    expect(seen.most).to.equal(6);
  });

  it('an interrupted job stops dispatch; the run ends interrupted with no RunCompleted (resumable)', async () => {
    const journal = new RecordingJournal();
    const seen = { order: [] as string[], running: 0, most: 0 };
    const first = jobs[0]!.jobId;
    const machine = coordinator.provide({
      actors: { agent: standIn<typeof jobMachine>(jobStub((j) => (j.jobId === first ? new RunInterrupted() : 'succeeded'), seen)) },
    });
    const r = await runMachine(machine, runInput('agent', journal, 1));
    expect(r.value).to.equal('interrupted');
    expect(seen.order).to.deep.equal([first]);
    expect((r.output as RunOutput).progress).to.deep.include({ interrupted: 1, queued: 5 });
    expect(journal.emitted().map((e) => e.type)).to.deep.equal(['RunStarted']);
  });

  it('a job that crashes (a bug, a determinism violation) ends the run with its error, and no RunCompleted', async () => {
    const journal = new RecordingJournal();
    const seen = { order: [] as string[], running: 0, most: 0 };
    const machine = coordinator.provide({
      actors: {
        agent: standIn<typeof jobMachine>(jobStub((j) => (j.caseId === 'c2' && j.arm === 'a' ? new Error('determinism violated') : 'succeeded'), seen)),
      },
    });
    const r = await runMachine(machine, runInput('agent', journal, 2));
    expect(r.status).to.equal('error');
    expect((r.error as Error).message).to.equal('determinism violated');
    expect(journal.emitted().map((e) => e.type)).to.deep.equal(['RunStarted']);
  });
});

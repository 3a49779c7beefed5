// The breaker: a pure fold of job ends (unit), and the run coordinator with stub jobs, which stops
// dispatching once it trips and ends interrupted (resumable) with the count in its output.
import { expect } from 'chai';
import { fromPromise } from 'xstate';
import type { DataOf, PlannedJob } from '../../src/events/index.js';
import type { JobOutput } from '../../src/harness/kernel/env.js';
import type { JobInput } from '../../src/harness/kernel/ports.js';
import type { jobMachine } from '../../src/harness/agent-job/machine.js';
import { breakerStart, noteJobEnd, type BreakerOptions, type BreakerState } from '../../src/harness/run/breaker.js';
import { planJobs } from '../../src/harness/run/logic.js';
import { runMachine as coordinator, type RunInput, type RunOutput } from '../../src/harness/run/machine.js';
import { jobInput, RecordingJournal, runMachine, standIn, TEST_CONFIG } from '../support/machines.js';

const ends = (b: BreakerState, list: [string, 'succeeded' | 'failed'][]) => list.reduce((s, [id, st]) => noteJobEnd(s, id, st), b);

describe('run breaker (pure fold of job ends)', () => {
  it('trips after max failures in a row, and only then', () => {
    const b = ends(breakerStart({ max: 3 }), [
      ['j1', 'failed'],
      ['j2', 'failed'],
    ]);
    expect(b).to.deep.include({ streak: 2, tripped: false });
    expect(noteJobEnd(b, 'j3', 'failed')).to.deep.include({ streak: 3, tripped: true });
  });

  it('a job that passes resets the count', () => {
    const b = ends(breakerStart({ max: 3 }), [
      ['j1', 'failed'],
      ['j2', 'failed'],
      ['j3', 'succeeded'],
      ['j4', 'failed'],
      ['j5', 'failed'],
    ]);
    expect(b).to.deep.include({ streak: 2, tripped: false });
  });

  it('max 0 (and no options) never trips', () => {
    for (const options of [{ max: 0 }, undefined] as (BreakerOptions | undefined)[]) {
      const b = ends(
        breakerStart(options),
        Array.from({ length: 50 }, (_, i) => [`j${i}`, 'failed'] as [string, 'failed']),
      );
      expect(b.tripped).to.equal(false);
    }
  });

  it('jobs whose end was recorded before (a resume) neither count nor reset: the count starts from zero', () => {
    const uncounted = new Set(['old1', 'old2', 'old3']);
    const b = ends(breakerStart({ max: 2, uncounted }), [
      ['old1', 'failed'],
      ['old2', 'failed'],
      ['new1', 'failed'],
      ['old3', 'succeeded'],
    ]);
    expect(b).to.deep.include({ streak: 1, tripped: false });
    expect(noteJobEnd(b, 'new2', 'failed').tripped).to.equal(true);
  });

  it('once tripped it stays tripped: jobs still in flight that end later change nothing', () => {
    const b = ends(breakerStart({ max: 1 }), [['j1', 'failed']]);
    expect(ends(b, [['j2', 'succeeded']])).to.deep.include({ streak: 1, tripped: true });
  });
});

const jobs: PlannedJob[] = planJobs(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'], ['a'], 1, 1, 1);
const started: DataOf<'RunStarted'> = {
  suite: 'test-suite',
  config: { ...TEST_CONFIG, concurrency: 1 },
  configHash: 'a'.repeat(64),
  seed: 1,
  orderSeed: 1,
  jobs,
  model: { name: 'test-model', scripted: true, baseUrlEnv: null, apiKeyEnv: null },
  concurrency: 1,
  provenance: {},
};

function input(journal: RecordingJournal, breaker: BreakerOptions | undefined, concurrency = 1): RunInput {
  const unused = () => {
    throw new Error('a stub job calls no hook');
  };
  const hooks = { shape: 'agent' as const, agent: { parentRequest: unused, acceptDelegation: unused, workerRequest: unused, runTool: unused }, grade: unused };
  return {
    runScope: journal.scope(undefined),
    signal: new AbortController().signal,
    started,
    jobs: { kind: 'local', jobKind: 'agent', window: concurrency, inputOf: (job) => jobInput(hooks, journal, { job }) },
    ...(breaker ? { breaker } : {}),
  };
}

function stub(outcome: (job: PlannedJob) => JobOutput['status'], order: string[]) {
  return fromPromise<JobOutput, JobInput>(async ({ input: { job } }) => {
    order.push(job.jobId);
    await new Promise((r) => setImmediate(r));
    return { jobId: job.jobId, status: outcome(job) };
  });
}

describe('run coordinator with a breaker (jobs replaced)', () => {
  it('stops dispatching after max failed jobs in a row and ends interrupted, with no RunCompleted, saying how many failed', async () => {
    const journal = new RecordingJournal();
    const order: string[] = [];
    const machine = coordinator.provide({ actors: { agent: standIn<typeof jobMachine>(stub(() => 'failed', order)) } });
    const r = await runMachine(machine, input(journal, { max: 3 }));
    expect(r.value).to.equal('interrupted');
    expect(order).to.deep.equal(jobs.slice(0, 3).map((j) => j.jobId));
    expect(r.output).to.deep.equal({
      status: 'interrupted',
      progress: { queued: 3, running: 0, succeeded: 0, failed: 3, interrupted: 0, incomplete: 0 },
      halted: { consecutiveFailures: 3 },
    } satisfies RunOutput);
    expect(journal.emitted().map((e) => e.type)).to.deep.equal(['RunStarted']);
  });

  it('waits for the jobs in flight when it trips (concurrency 2), and starts no new one', async () => {
    const order: string[] = [];
    const machine = coordinator.provide({ actors: { agent: standIn<typeof jobMachine>(stub(() => 'failed', order)) } });
    const r = await runMachine(machine, input(new RecordingJournal(), { max: 1 }, 2));
    expect(r.value).to.equal('interrupted');
    expect(order).to.have.length(2);
    expect((r.output as RunOutput).progress).to.deep.include({ failed: 2, running: 0, queued: 4 });
  });

  it('failures broken up by a success complete the run (exit 3 is for the CLI to give)', async () => {
    const order: string[] = [];
    const pass = new Set([jobs[2]!.jobId, jobs[5]!.jobId]);
    const machine = coordinator.provide({ actors: { agent: standIn<typeof jobMachine>(stub((j) => (pass.has(j.jobId) ? 'succeeded' : 'failed'), order)) } });
    const r = await runMachine(machine, input(new RecordingJournal(), { max: 3 }));
    expect(r.value).to.equal('completed');
    expect((r.output as RunOutput).halted).to.equal(undefined);
    expect(order).to.have.length(6);
  });

  it('without a breaker, a run whose every job fails completes', async () => {
    const machine = coordinator.provide({ actors: { agent: standIn<typeof jobMachine>(stub(() => 'failed', [])) } });
    const r = await runMachine(machine, input(new RecordingJournal(), undefined));
    expect(r.value).to.equal('completed');
    expect((r.output as RunOutput).progress.failed).to.equal(6);
  });
});

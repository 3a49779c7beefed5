import { expect } from 'chai';
import { attemptName, attemptOfName, type PlannedJob } from '../../src/events/index.js';
import { decideReopen, foldOutcomes, passesOf } from '../../src/harness/orchestration/retry/index.js';
import { decideRun } from '../../src/harness/run/logic.js';
import { decideJob } from '../../src/harness/kernel/job-lifecycle.js';
import { fold, jobStatesProjection, reportRows } from '../../src/projections/index.js';
import { genericColumns } from '../../src/projections/rows.js';
import { decided, requestedData, succeededData, failedData, Timeline } from '../support/build-events.js';

const job = (caseId: string): PlannedJob => ({ jobId: `${caseId}:a:1`, caseId, arm: 'a', repetition: 1, seed: 7 });
const PLAN = [job('c'), job('a'), job('b'), job('d')];
const started = {
  suite: 'dataset',
  config: {},
  configHash: 'h',
  seed: 7,
  orderSeed: 1,
  jobs: PLAN,
  model: { name: 'm', scripted: false, baseUrlEnv: 'X', apiKeyEnv: null },
  concurrency: 1,
  provenance: {},
};

/** A run whose jobs a (passed), b (JobFailed), c (did not pass), d (JobFailed) ended, each with one call. */
function firstRun(t = new Timeline()): Timeline {
  t.add(undefined, 0, 'RunStarted', started);
  const end = { a: true, b: 'error', c: false, d: 'error' } as const;
  for (const j of PLAN) {
    const id = j.jobId;
    t.add(id, 1, 'JobStarted', { caseId: j.caseId, arm: 'a', repetition: 1, seed: 7 });
    t.add(id, 2, 'ProviderCallRequested', requestedData('answer/attempt-1', { attribution: 'main' }));
    const how = end[j.caseId as keyof typeof end];
    if (how === 'error') {
      t.add(id, 3, 'ProviderCallFailed', failedData('answer/attempt-1', { kind: 'client_error', status: 400, retryable: false }));
      t.add(id, 4, 'JobFailed', { reason: 'provider_failed', message: 'client_error' });
    } else {
      t.add(id, 3, 'ProviderCallSucceeded', succeededData('answer/attempt-1'));
      t.add(id, 4, 'JobSucceeded', { passed: how });
    }
  }
  t.add(undefined, 5, 'RunCompleted', { status: 'completed', jobsSucceeded: 2, jobsFailed: 2 });
  return t;
}

/** The first retry of `ids` (reason errors), each job's second attempt passing with one call. */
function retried(t: Timeline, ids: string[]): Timeline {
  t.add(undefined, 10, 'RunReopened', { retry: 1, reason: 'errors', jobIds: ids });
  for (const id of ids) {
    const j = PLAN.find((p) => p.jobId === id)!;
    t.add(id, 11, 'JobStarted', { caseId: j.caseId, arm: 'a', repetition: 1, seed: 7, attempt: 2 });
    t.add(id, 12, 'ProviderCallRequested', requestedData('try-2/answer/attempt-1', { attribution: 'main' }));
    t.add(id, 13, 'ProviderCallSucceeded', succeededData('try-2/answer/attempt-1', { usage: { prompt: 1, completion: 1, total: 2 } }));
    t.add(id, 14, 'JobSucceeded', { passed: true });
  }
  t.add(undefined, 15, 'RunCompleted', { status: 'completed', jobsSucceeded: 4, jobsFailed: 0 });
  return t;
}

describe('retry: outcome fold and decisions', () => {
  it("names a later attempt's effects apart and reads the attempt back; the first attempt stays bare", () => {
    expect(attemptName(undefined, 'answer')).to.equal('answer');
    expect(attemptName(1, 'answer')).to.equal('answer');
    expect(attemptName(3, 'worker/turn-2')).to.equal('try-3/worker/turn-2');
    expect(attemptOfName('try-3/worker/turn-2/attempt-1')).to.equal(3);
    expect(attemptOfName('worker/turn-2/attempt-1')).to.equal(1);
  });

  it("folds each job's last outcome and attempt count", () => {
    const o = foldOutcomes(retried(firstRun(), ['b:a:1']).events);
    expect(Object.fromEntries(o)).to.deep.equal({
      'a:a:1': { attempts: 1, outcome: 'passed' },
      'b:a:1': { attempts: 2, outcome: 'passed' },
      'c:a:1': { attempts: 1, outcome: 'not_passed' },
      'd:a:1': { attempts: 1, outcome: 'errors' },
    });
  });

  it('decides the jobs that ended in errors (errors) or also did not pass (failed), in plan order; none is no event', () => {
    const o = foldOutcomes(firstRun().events);
    expect(decideReopen({ retry: 1, reason: 'errors' }, PLAN, o)).to.deep.equal({ retry: 1, reason: 'errors', jobIds: ['b:a:1', 'd:a:1'] });
    expect(decideReopen({ retry: 1, reason: 'failed' }, PLAN, o)?.jobIds).to.deep.equal(['c:a:1', 'b:a:1', 'd:a:1']);
    const done = foldOutcomes(retried(firstRun(), ['b:a:1', 'd:a:1']).events);
    expect(decideReopen({ retry: 2, reason: 'errors' }, PLAN, done)).to.equal(null);
    expect(decided(decideRun({ type: 'Reopen', data: { retry: 1, reason: 'errors', jobIds: ['b:a:1'] } }))).to.deep.equal([
      { type: 'RunReopened', data: { retry: 1, reason: 'errors', jobIds: ['b:a:1'] } },
    ]);
  });

  it('re-decides recorded retries from the events before each, and the next one after all of them', () => {
    const log = retried(firstRun(), ['b:a:1', 'd:a:1']).events;
    const { passes, next } = passesOf(log, PLAN, 'failed');
    expect(passes.map((p) => p.data)).to.deep.equal([{ retry: 1, reason: 'errors', jobIds: ['b:a:1', 'd:a:1'] }]);
    expect(passes[0]!.jobs.map((j) => [j.job.jobId, j.attempt])).to.deep.equal([
      ['b:a:1', 2],
      ['d:a:1', 2],
    ]);
    expect(passes[0]!.others).to.deep.equal({ succeeded: 2, failed: 0 });
    expect(next?.data).to.deep.equal({ retry: 2, reason: 'failed', jobIds: ['c:a:1'] });
    expect(next?.jobs.map((j) => j.attempt)).to.deep.equal([2]);
    expect(next?.others).to.deep.equal({ succeeded: 3, failed: 0 });
  });

  it('a recorded retry the fold does not lead to is kept with no job, for replay to report as a divergence', () => {
    const t = firstRun();
    t.add(undefined, 10, 'RunReopened', { retry: 1, reason: 'errors', jobIds: ['a:a:1'] });
    expect(passesOf(t.events, PLAN).passes[0]!.data.jobIds).to.deep.equal(['b:a:1', 'd:a:1']);
  });

  it('records the attempt in JobStarted of a later attempt only', () => {
    expect(decided(decideJob({ type: 'Start', job: PLAN[0]! }))[0]!.data).to.not.have.property('attempt');
    expect(decided(decideJob({ type: 'Start', job: PLAN[0]!, attempt: 2 }))[0]!.data).to.include({ attempt: 2, seed: 7 });
  });
});

describe("retry: projections keep a job's last attempt", () => {
  it('rows show the last attempt with its count and calls; rows of jobs not retried are unchanged', async () => {
    const before = await fold(reportRows({ columns: genericColumns }), firstRun().events);
    const after = await fold(reportRows({ columns: genericColumns }), retried(firstRun(), ['b:a:1', 'd:a:1']).events);
    const by = (rows: Record<string, unknown>[]) => Object.fromEntries(rows.map((r) => [r.job_id, r]));
    const [b0, b1] = [by(before), by(after)];
    expect(b1['a:a:1']).to.deep.equal(b0['a:a:1']);
    expect(b1['c:a:1']).to.deep.equal(b0['c:a:1']);
    expect(b0['b:a:1']).to.not.have.property('attempts');
    expect(b1['b:a:1']).to.include({ status: 'succeeded', attempts: 2, calls: 1, failed_calls: 0, failure: null });
    expect((b1['b:a:1'] as { usage: { total: { total_tokens: number } } }).usage.total.total_tokens).to.equal(2);
  });

  it('job states count a retried job once, by its last end', async () => {
    const s = await fold(jobStatesProjection, retried(firstRun(), ['b:a:1', 'd:a:1']).events);
    expect(s).to.include({ planned: 4, running: 0, succeeded: 4, failed: 0 });
  });
});

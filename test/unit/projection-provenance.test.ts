import { expect } from 'chai';
import type { DataOf } from '../../src/events/index.js';
import { planJobs } from '../../src/harness/run/logic.js';
import { fold } from '../../src/projections/fold/projection.js';
import { provenanceProjection } from '../../src/projections/fold/provenance.js';
import { requestedData, T0, Timeline } from '../support/build-events.js';

const jobs = planJobs(['fruit', 'office'], ['brief', 'full'], 1, 7, 20260913);

function started(model: DataOf<'RunStarted'>['model']): DataOf<'RunStarted'> {
  return {
    suite: 'smoke',
    config: { repetitions: 1, seed: 7 },
    configHash: 'e'.repeat(64),
    seed: 7,
    orderSeed: 20260913,
    jobs,
    model,
    concurrency: 3,
    provenance: { evalog: '0.1.0', git: { revision: 'abc', dirty: true } },
  };
}
const scripted = { name: 'evalog-scripted', scripted: true, baseUrlEnv: null, apiKeyEnv: null };
const real = { name: 'gpt-x', scripted: false, baseUrlEnv: 'EVALOG_BASE_URL', apiKeyEnv: 'EVALOG_API_KEY' };

describe('provenance projection (run.json)', () => {
  it('is null for a log without RunStarted', async () => {
    const t = new Timeline('run-p');
    t.add('fruit:brief:1', 5, 'JobStarted', { caseId: 'fruit', arm: 'brief', repetition: 1, seed: 8 });
    expect(await fold(provenanceProjection, t.events)).to.equal(null);
  });

  it('an unfinished run: set-up from RunStarted, job order as planned, status unfinished', async () => {
    const t = new Timeline('run-p');
    t.add(undefined, 0, 'RunStarted', started(scripted));
    t.add('fruit:brief:1', 5, 'ProviderCallRequested', requestedData('parent/turn-1/attempt-1'));
    const run = await fold(provenanceProjection, t.events);
    expect(run).to.deep.equal({
      run_id: 'run-p',
      suite: 'smoke',
      status: 'unfinished',
      started_at: new Date(T0).toISOString(),
      completed_at: null,
      config: { repetitions: 1, seed: 7 },
      config_hash: 'e'.repeat(64),
      seed: 7,
      order_seed: 20260913,
      job_order: jobs.map((j) => j.jobId),
      model: scripted,
      concurrency: 3,
      scoring_rule: 'a job passes when every hidden check passes',
      provenance: { evalog: '0.1.0', git: { revision: 'abc', dirty: true } },
      note: 'Played by the built-in scripted model: not a result of any real model.',
    });
    // The recorded execution order, not a sorted one.
    expect(run!.job_order).to.not.deep.equal([...run!.job_order].sort());
  });

  it('a completed run has status completed and the time of RunCompleted', async () => {
    const t = new Timeline('run-p');
    t.add(undefined, 0, 'RunStarted', started(scripted));
    t.add(undefined, 4_000, 'RunCompleted', { status: 'completed', jobsSucceeded: 4, jobsFailed: 0 });
    expect(await fold(provenanceProjection, t.events)).to.deep.include({ status: 'completed', completed_at: new Date(T0 + 4_000).toISOString() });
  });

  it('a run against a real model has no scripted note and records variable names only', async () => {
    const t = new Timeline('run-p');
    t.add(undefined, 0, 'RunStarted', started(real));
    const run = await fold(provenanceProjection, t.events);
    expect(run).to.deep.include({ note: null, model: real });
  });

  it('handles only the run-level set-up and completion events', () => {
    const t = new Timeline('run-p');
    const handled = [
      t.add(undefined, 0, 'RunStarted', started(scripted)),
      t.add('fruit:brief:1', 1, 'JobStarted', { caseId: 'fruit', arm: 'brief', repetition: 1, seed: 8 }),
      t.add(undefined, 2, 'RunCompleted', { status: 'completed', jobsSucceeded: 1, jobsFailed: 0 }),
    ].map((e) => provenanceProjection.canHandle(e));
    expect(handled).to.deep.equal([true, false, true]);
  });
});

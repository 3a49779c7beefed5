import { expect } from 'chai';
// TODO(api): an engine internal with no public export: the run's plan (job order, seeds) before anything runs.
import { planRun } from '../../../../src/harness/orchestration/launch.js';
import { contextSnapshotDefinition as suite, contextSnapshotSuite } from '../../src/index.js';

describe('context-snapshot plan', () => {
  it('has the protocol config: temperature 0.2, reasoning none, 4096 tokens, 50 turns, 180 s, concurrency 2, no retries, seeds 1703 and 20260913', () => {
    const c = suite.defaults;
    // evalog's own variant, labelled as such: not the published protocol's id.
    expect(c.protocol).to.equal('evalog-context-snapshot-synthetic-v1');
    expect([c.protocolDir, c.allowUnpinned, c.protocolFiles, c.protocolCases]).to.deep.equal([null, false, null, null]);
    expect(c.model).to.deep.equal({ temperature: 0.2, maxTokens: 4096, reasoningEffort: 'none' });
    expect(c.worker).to.deep.equal({ turnCap: 50, timeLimitMs: 180_000 });
    expect(c.provider.maxAttempts).to.equal(1);
    expect([c.concurrency, c.seed, c.orderSeed]).to.deep.equal([2, 1703, 20260913]);
  });

  it('orders 16 jobs (one repetition) by the seeded shuffle of the spec, with the config seed 1703 for the first repetition (upstream repetition 0), recorded in the plan', async () => {
    const prepared = await contextSnapshotSuite.configure(suite.defaults).prepare();
    const started = planRun(prepared, { scripted: true });
    const cases = prepared.cases.map((c) => c.id);
    const unshuffled = cases.flatMap((c) => ['isolated_handoff', 'snapshot'].map((arm) => `${c}:${arm}:1`));
    const permutation = [4, 8, 7, 1, 11, 2, 0, 10, 14, 6, 5, 13, 15, 12, 9, 3];
    expect(started.jobs.map((j) => j.jobId)).to.deep.equal(permutation.map((i) => unshuffled[i]));
    expect(started.jobs.every((j) => j.seed === 1703)).to.equal(true);
    expect(cases).to.deep.equal([
      'rate_limits',
      'invoice_total',
      'pagination',
      'email_cleanup',
      'release_plan',
      'fresh_evidence',
      'self_contained',
      'storage_policy',
    ]);
  });

  it('rejects a config that turns provider retries on, naming the field', () => {
    const bad = { ...suite.defaults, provider: { ...suite.defaults.provider, maxAttempts: 3 } };
    const r = suite.configSchema.safeParse(bad);
    expect(r.success).to.equal(false);
    expect(r.error!.issues[0]!.path.join('.')).to.equal('provider.maxAttempts');
  });
});

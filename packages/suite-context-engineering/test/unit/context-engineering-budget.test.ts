import { expect } from 'chai';
import type { CeRow } from '../../src/index.js';
import type { ContextEngineeringConfig } from '../../src/config.js';
import { dataOf, runCe, type CeRun } from './context-engineering-support.js';

/** The config with every cell's budget changed. */
const budget =
  (b: Partial<ContextEngineeringConfig['cells'][string]['budget']>) =>
  (c: ContextEngineeringConfig): ContextEngineeringConfig => ({
    ...c,
    cells: Object.fromEntries(Object.entries(c.cells).map(([k, cell]) => [k, { ...cell, budget: { ...cell.budget, ...b } }])),
  });
const rowsOf = (run: CeRun) => new Map((run.outputs.rows as unknown as CeRow[]).map((r) => [r.job_id, r]));

describe('context-engineering budgets and cost accounting', function () {
  this.timeout(60_000);
  const runs: CeRun[] = [];
  after(() => Promise.all(runs.map((r) => r.cleanup())));
  const go = async (o: Parameters<typeof runCe>[0]) => {
    const r = await runCe(o);
    runs.push(r);
    return r;
  };

  it('a main-call budget stops the loop, is recorded as a stop reason, and fails the job', async () => {
    const run = await go({ cases: ['key_negation'], edit: budget({ mainCalls: 2 }) });
    const events = run.job('key_negation:candidate:1');
    expect(dataOf(events, 'BudgetExhausted')).to.deep.equal([{ budget: 'main_calls', limit: 2, used: 2 }]);
    expect(dataOf(events, 'WorkerStopped')[0]).to.include({ reason: 'turn_cap' });
    const row = rowsOf(run).get('key_negation:candidate:1')!;
    expect(row).to.include({ stop_reason: 'budget:main_calls', success: false });
    expect(row.calls.main).to.equal(2);
    expect(row.failure_types).to.include.members(['budget:main_calls', 'not_submitted']);
  });

  it('the model-call budget covers queries: queries past it are not sent, and the loop stops', async () => {
    const run = await go({ cases: ['query_failure'], edit: budget({ modelCalls: 5 }) });
    const events = run.job('query_failure:candidate:1');
    // Main 1 + 3 queries = 4; main 2 = 5; its two reruns are not sent.
    expect(dataOf(events, 'ProviderCallRequested')).to.have.length(5);
    const rerun = dataOf(events, 'ToolCalled').at(-1)!;
    expect(JSON.parse(rerun.result).results.map((r: { status: string }) => r.status)).to.deep.equal(['not_run', 'not_run']);
    expect(dataOf(events, 'BudgetExhausted')).to.deep.equal([{ budget: 'model_calls', limit: 5, used: 5 }]);
  });

  it('the deadline is measured on the recorded clock and stops the loop', async () => {
    const run = await go({ cases: ['stale_evidence'], stepMs: 10_000, edit: budget({ deadlineMs: 60_000 }) });
    const row = rowsOf(run).get('stale_evidence:candidate:1')!;
    expect(row.stop_reason).to.equal('budget:deadline');
    expect(dataOf(run.job('stale_evidence:candidate:1'), 'BudgetExhausted')[0]).to.include({ budget: 'deadline', limit: 60_000 });
  });

  it('a real provider failure of a query is a failed call with unknown usage and its retry a new call; neither is an injection', async () => {
    const onlyCandidate = (c: ContextEngineeringConfig) => ({ ...c, cells: { candidate: c.cells.candidate! } });
    const run = await go({
      cases: ['query_failure'],
      edit: onlyCandidate,
      scripted: { faults: [{ kind: 'server_error', match: 'source ledger-eu', times: 1 }] },
    });
    const events = run.job('query_failure:candidate:1');
    expect(dataOf(events, 'ProviderCallFailed').map((f) => [f.callId, f.kind])).to.deep.equal([['worker/turn-1/tool-0/query-0/attempt-1', 'server_error']]);
    expect(dataOf(events, 'FaultInjected').map((i) => i.kind)).to.deep.equal(['query_failure', 'query_truncation']);
    const row = rowsOf(run).get('query_failure:candidate:1')!;
    expect(row.calls).to.include({ query: 6, failed: 1, total: 10 });
    expect(row.usage.total_tokens).to.include({ known_calls: 9, unknown_calls: 1 });
    expect(row.success).to.equal(true);
  });

  it('a main call that fails on every attempt ends the job as provider_failed, each attempt a counted call without usage', async () => {
    const onlyCandidate = (c: ContextEngineeringConfig) => ({ ...c, cells: { candidate: c.cells.candidate! } });
    const run = await go({ cases: ['key_negation'], edit: onlyCandidate, scripted: { faults: [{ kind: 'server_error', match: 'preset=verify-v1' }] } });
    const events = run.job('key_negation:candidate:1');
    expect(dataOf(events, 'ProviderCallFailed').map((f) => f.callId)).to.deep.equal(['worker/turn-1/attempt-1', 'worker/turn-1/attempt-2']);
    expect(dataOf(events, 'JobFailed')).to.deep.include({ reason: 'provider_failed', message: 'server error (500)' });
    const row = rowsOf(run).get('key_negation:candidate:1')!;
    expect(row).to.deep.include({ status: 'failed', stop_reason: 'provider_failed', failure_types: ['provider_failed'] });
    expect(row.usage.total_tokens).to.deep.equal({ sum: null, known_calls: 0, unknown_calls: 2 });
  });

  it('usage the provider did not report stays unknown beside the sums, never zero', async () => {
    const run = await go({ cases: ['stale_evidence'], scripted: { omitUsage: 'always' } });
    const row = rowsOf(run).get('stale_evidence:candidate:1')!;
    expect(row.usage.total_tokens).to.deep.equal({ sum: null, known_calls: 0, unknown_calls: row.calls.total });
    expect(run.outputs.table()).to.match(/^candidate\s+stale_evidence.*unknown \(4 unknown\)/m);
  });
});

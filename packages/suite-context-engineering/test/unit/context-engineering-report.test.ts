import { expect } from 'chai';
import { fold } from 'evalog';
import { failedData, requestedData, succeededData, Timeline } from '../../../../test/support/build-events.js';
import { ceRows, ceTable, summarizeCe, type CeRow } from '../../src/index.js';

const header = { runId: 'r', suite: 'context-engineering', model: 'm', scripted: false };

// Two jobs of one cell × case: one reports usage, the other's calls fail or report none.
function timeline(): Timeline {
  const t = new Timeline();
  const jobs = [
    { jobId: 'stale_evidence:a:1', caseId: 'stale_evidence', arm: 'a', repetition: 1, seed: 1, meta: { scenario: 'stale_evidence', recovery: null } },
  ];
  jobs.push({ ...jobs[0]!, jobId: 'stale_evidence:a:2', repetition: 2, seed: 2 });
  t.add(undefined, 0, 'RunStarted', {
    suite: 'context-engineering',
    config: {},
    configHash: 'h',
    seed: 1,
    orderSeed: 1,
    jobs,
    model: { name: 'm', scripted: false, baseUrlEnv: 'X', apiKeyEnv: null },
    concurrency: 1,
    provenance: {},
  });
  const j1 = 'stale_evidence:a:1';
  t.add(j1, 0, 'JobStarted', { caseId: 'stale_evidence', arm: 'a', repetition: 1, seed: 1 });
  t.add(j1, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
  t.add(j1, 20, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-1', { usage: { prompt: 100, completion: 10, total: 110 } }));
  t.add(j1, 30, 'FaultInjected', {
    injectionId: 'm',
    kind: 'source_mutation',
    target: 'limits.yaml',
    detail: 'd',
    notice: 'n',
    mutation: { source: 'limits.yaml', revision: 2, lines: ['x'] },
  });
  t.add(j1, 40, 'JobSucceeded', { passed: true });
  const j2 = 'stale_evidence:a:2';
  t.add(j2, 0, 'JobStarted', { caseId: 'stale_evidence', arm: 'a', repetition: 2, seed: 2 });
  t.add(j2, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
  t.add(j2, 20, 'ProviderCallFailed', failedData('worker/turn-1/attempt-1'));
  t.add(j2, 30, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-2', { attribution: 'main' }));
  t.add(j2, 40, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-2', { usage: null }));
  t.add(j2, 50, 'ProviderCallRequested', requestedData('worker/turn-1/tool-0/query-0/attempt-1', { attribution: 'query' }));
  t.add(j2, 60, 'BudgetExhausted', { budget: 'model_calls', limit: 3, used: 3 });
  t.add(j2, 61, 'WorkerStopped', { reason: 'turn_cap', turns: 1, answer: null });
  t.add(j2, 70, 'JobSucceeded', { passed: false });
  return t;
}

describe('context-engineering report', () => {
  it('rows count every attempt, keep unknown usage apart from the sums, and name a budget stop', async () => {
    const rows = await fold(ceRows, timeline().events);
    expect(rows.map((r) => r.job_id)).to.deep.equal(['stale_evidence:a:1', 'stale_evidence:a:2']);
    expect(rows[0]).to.deep.include({ scenario: 'stale_evidence', injections: { source_mutation: 1 }, wall_seconds: 0.04 });
    expect(rows[0]!.usage.total_tokens).to.deep.equal({ sum: 110, known_calls: 1, unknown_calls: 0 });
    const r2 = rows[1]!;
    expect(r2.calls).to.deep.equal({ main: 2, query: 1, child: 0, unknown: 0, failed: 1, total: 3 });
    // The failed attempt, the success without usage and the query with no outcome: three unknowns, no invented zero.
    expect(r2.usage.total_tokens).to.deep.equal({ sum: null, known_calls: 0, unknown_calls: 3 });
    expect(r2.stop_reason).to.equal('budget:model_calls');
    expect(r2.failure_types).to.deep.equal(['budget:model_calls']);
  });

  it('the summary adds known sums and unknown counts per cell × case; the table shows both', async () => {
    const rows = (await fold(ceRows, timeline().events)) as CeRow[];
    const s = summarizeCe(rows, header);
    const one = s.cells.a!.stale_evidence!;
    expect(one.usage.total_tokens).to.deep.equal({ sum: 110, known_calls: 1, unknown_calls: 3 });
    expect(one.stop_reasons).to.deep.equal({ 'budget:model_calls': 1, none: 1 });
    expect(one.calls).to.deep.equal({ main: 3, query: 1, failed: 1, total: 4 });
    expect(ceTable(s)).to.match(/^a\s+stale_evidence\s+2\s+0\/2\s.*110 \(3 unknown\)\s+budget:model_calls,none\s+0\.06$/m);
  });
});

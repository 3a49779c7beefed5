import { expect } from 'chai';
import type { CeRow, CeSummary } from '../../src/index.js';
import { dataOf, runCe, type CeRun } from './context-engineering-support.js';

// One run of every scenario in both cells: the careful preset (candidate) must pass every check,
// the skimming one (baseline) must fail the checks its scenario is built for.
describe('context-engineering scenarios: the checks separate careful from skimming play', function () {
  this.timeout(60_000);
  let run: CeRun;
  let rows: Map<string, CeRow>;
  const row = (c: string, cell: string) => rows.get(`${c}:${cell}:1`)!;
  const failing = (c: string, cell: string) =>
    dataOf(run.job(`${c}:${cell}:1`), 'CheckEvaluated')
      .filter((x) => !x.passed)
      .map((x) => x.checkId);

  before(async () => {
    run = await runCe();
    rows = new Map((run.outputs.rows as unknown as CeRow[]).map((r) => [r.job_id, r]));
  });
  after(() => run.cleanup());

  it('runs 5 cases × 2 cells; every candidate job passes every check, every baseline job fails', () => {
    expect(run.out.status).to.equal('completed');
    expect(rows.size).to.equal(10);
    for (const r of rows.values()) {
      expect(r.success, r.job_id).to.equal(r.cell === 'candidate');
      if (r.cell === 'candidate') expect(failing(r.case, 'candidate'), r.job_id).to.deep.equal([]);
      expect(r.stop_reason, r.job_id).to.equal('answered');
    }
  });

  it('stale_evidence: the source changes after the first read; candidate re-reads revision 2, baseline acts on revision 1', () => {
    const injected = dataOf(run.job('stale_evidence:baseline:1'), 'FaultInjected');
    expect(injected.map((i) => [i.kind, i.target, i.mutation?.revision])).to.deep.equal([['source_mutation', 'limits.yaml', 2]]);
    expect(row('stale_evidence', 'candidate').evidence).to.deep.equal([
      { id: 'E-MAXCONN-R2', source: 'limits.yaml', line: 7, revision: 2, fetched: true, cited: true, hit: true },
    ]);
    const bad = row('stale_evidence', 'baseline');
    expect(bad.stale_misuses).to.equal(2); // the set_record and the submission both used revision 1
    expect(bad.evidence[0]).to.include({ fetched: false, cited: true, hit: false });
    expect(failing('stale_evidence', 'baseline')).to.deep.equal(['state:record:pool_size', 'evidence:E-MAXCONN-R2', 'no_stale_misuse']);
  });

  it('key_negation: candidate fetches and cites line 87 (NOT eligible); baseline skims page 1 and cites the summary', () => {
    expect(row('key_negation', 'candidate').evidence_hits).to.equal(1);
    expect(row('key_negation', 'candidate').calls.main).to.equal(5); // three pages, the record, the submission
    const submitted = dataOf(run.job('key_negation:baseline:1'), 'EnvironmentChanged').find((e) => e.terminal)!;
    expect(JSON.parse(submitted.value).evidence).to.deep.equal([{ source: 'vendor_terms.md', line: 3 }]);
    expect(failing('key_negation', 'baseline')).to.deep.equal(['state:record:vendor.acme.expedited', 'evidence:E-ACME-NOT-ELIGIBLE']);
  });

  it('query_failure: both faults are recorded injections, never provider failures; reruns and failed attempts all count in cost', () => {
    for (const cell of ['baseline', 'candidate']) {
      const events = run.job(`query_failure:${cell}:1`);
      const injected = dataOf(events, 'FaultInjected');
      expect(injected.map((i) => [i.kind, i.target])).to.deep.equal([
        ['query_failure', 'worker/turn-1/tool-0/query-1/attempt-1'],
        ['query_truncation', 'worker/turn-1/tool-0/query-2/attempt-1'],
      ]);
      // The calls the harness altered succeeded at the provider, with usage: that is what usage.json shows.
      expect(dataOf(events, 'ProviderCallFailed')).to.deep.equal([]);
      const touched = dataOf(events, 'ProviderCallSucceeded').filter((s) => injected.some((i) => i.target === s.callId));
      expect(touched.map((s) => s.usage !== null)).to.deep.equal([true, true]);
    }
    const good = row('query_failure', 'candidate');
    expect(good.calls).to.include({ main: 4, query: 5, total: 9 }); // 3 queries, then 2 reruns
    expect(good.usage.total_tokens).to.include({ known_calls: 9, unknown_calls: 0 });
    expect(good.injections).to.deep.equal({ query_failure: 1, query_truncation: 1 });
    const bad = row('query_failure', 'baseline');
    expect(bad.calls).to.include({ query: 3 });
    expect(bad.evidence.map((e) => e.hit)).to.deep.equal([true, false, false]);
    expect(dataOf(run.job('query_failure:baseline:1'), 'EnvironmentChanged')[0]!.value).to.equal('4222'); // 4210 + a cut "12"
  });

  it('recovery_context_switch: candidate checks state after the switch; baseline follows stale notes and applies both migrations again', () => {
    const good = row('recovery_context_switch', 'candidate');
    expect([good.duplicate_effects, good.stale_misuses, good.side_effects]).to.deep.equal([0, 0, 3]);
    const bad = row('recovery_context_switch', 'baseline');
    expect([bad.duplicate_effects, bad.stale_misuses]).to.deep.equal([2, 2]);
    expect(failing('recovery_context_switch', 'baseline')).to.deep.equal(['state:migrations', 'no_stale_misuse', 'no_duplicate_effect']);
    // The new window holds only the start messages and the host's (stale) notes.
    const switched = dataOf(run.job('recovery_context_switch:baseline:1'), 'FaultInjected');
    expect(switched.map((i) => i.kind)).to.deep.equal(['context_switch']);
  });

  it('recovery_worker_restart: baseline redoes the side effect it was stopped after; candidate does not', () => {
    expect(row('recovery_worker_restart', 'candidate')).to.include({ duplicate_effects: 0, success: true });
    expect(row('recovery_worker_restart', 'baseline')).to.include({ duplicate_effects: 1, stale_misuses: 1, success: false });
    const effects = dataOf(run.job('recovery_worker_restart:baseline:1'), 'EnvironmentChanged').map((e) => e.effect);
    expect(effects.slice(0, 3)).to.deep.equal(['apply_migration:M1', 'apply_migration:M2', 'apply_migration:M1']);
  });

  it('the summary has every cell × case, usage with unknown counts beside each sum; the table prints one line for each', () => {
    const s = run.outputs.summary as CeSummary;
    expect(Object.keys(s.cells)).to.deep.equal(['baseline', 'candidate']);
    for (const cell of Object.values(s.cells)) {
      expect(Object.keys(cell)).to.deep.equal(['key_negation', 'query_failure', 'recovery_context_switch', 'recovery_worker_restart', 'stale_evidence']);
      for (const c of Object.values(cell)) expect(Object.keys(c.usage.total_tokens).sort()).to.deep.equal(['known_calls', 'sum', 'unknown_calls']);
    }
    expect(s.cells.candidate!.recovery_worker_restart).to.include({ recovery: 'worker_restart', scenario: 'recovery', successes: 1 });
    const table = run.outputs.table();
    expect(table).to.match(/scripted model: not a real model result/);
    // 12 lines of cells × scenarios, then the roll-up across repetitions: a blank, its title, its header, a line per cell;
    // then a blank and the paired comparison of the two cells (the summary's `paired`).
    expect(table.trim().split('\n')).to.have.length(19);
    expect(table.trimEnd().split('\n').at(-1)).to.match(
      /^paired baseline vs candidate: 5 pairs, baseline only 0, candidate only 5, p=0\.063, difference \+100\.0 points/,
    );
    expect(table).to.match(/^per cell across repetitions:$/m);
    expect(table).to.match(/^baseline\s+1\s+5\s+0\/5\s/m);
    expect(table).to.match(/^candidate\s+1\s+5\s+5\/5\s/m);
    expect(table).to.match(/^candidate\s+query_failure\s+1\s+1\/1\s+1\/1\s+3\/3\s+0\s+0\s+4\s+5\s+0\s+2\s+\d+ \(0 unknown\)\s+answered/m);
    expect(table).to.match(/^baseline\s+stale_evidence\s+1\s+0\/1\s+0\/1\s+0\/1\s+2\s+0/m);
  });
});

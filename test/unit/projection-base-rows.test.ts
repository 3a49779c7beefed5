import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { PlannedJob } from '../../src/events/index.js';
import { Timeline } from '../support/build-events.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { baseRowsProjection, fold, reportRows, type BaseRow, type JobColumns } from '../../src/projections/index.js';
import { baseRows } from '../../src/projections/base-row.js';
import { ATTRIBUTIONS, USAGE_FIELDS, usageProjection, type UsageFile } from '../../src/projections/usage/index.js';

const runStartedData = (jobs: PlannedJob[]) => ({
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

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));

/** The base rows and usage.json of a golden log, each folded on its own. */
async function derive(runId: string): Promise<{ rows: BaseRow[]; usage: UsageFile }> {
  const log = await FileEventLog.open({ root: GOLDEN });
  try {
    let base = baseRowsProjection.initialState();
    let usage = usageProjection.initialState();
    for await (const e of log.read(runId)) {
      if (baseRowsProjection.canHandle(e)) base = baseRowsProjection.evolve(base, e);
      if (usageProjection.canHandle(e)) usage = usageProjection.evolve(usage, e);
    }
    const file = usageProjection.result(usage);
    return { rows: [...baseRows(base, file.calls)].map((r) => r.row), usage: file };
  } finally {
    await log.close();
  }
}

describe('base rows', () => {
  // Every shape: agent (smoke, context-snapshot), single-call (dataset, memory-eviction), session (context-engineering).
  for (const runId of ['smoke', 'smoke-usage-missing', 'context-snapshot', 'dataset', 'memory-eviction', 'context-engineering']) {
    it(`${runId}: the jobs' usage per attribution adds up to usage.json's, field by field, known and unknown calls alike`, async () => {
      const { rows, usage } = await derive(runId);
      expect(rows.map((r) => r.job_id)).to.deep.equal([...rows.map((r) => r.job_id)].sort());
      expect(rows.reduce((n, r) => n + r.calls, 0)).to.equal(usage.report.calls);
      for (const a of ATTRIBUTIONS) {
        const want = usage.report.byAttribution[a];
        expect(
          rows.reduce((n, r) => n + r.usage[a].calls, 0),
          a,
        ).to.equal(want.calls);
        for (const f of USAGE_FIELDS) {
          const sums = rows.map((r) => r.usage[a].usage.fields[f].sum).filter((s): s is number => s !== null);
          expect(sums.length === 0 ? null : sums.reduce((x, y) => x + y, 0), `${a}.${f}`).to.equal(want.usage.fields[f].sum);
          expect(
            rows.reduce((n, r) => n + r.usage[a].usage.fields[f].unknownCalls, 0),
            `${a}.${f} unknown`,
          ).to.equal(want.usage.fields[f].unknownCalls);
        }
      }
    });
  }

  it("a single-call job has no stop reason; an agent job has its worker's; all ended jobs have a status and seconds", async () => {
    const dataset = (await derive('dataset')).rows;
    expect(dataset.every((r) => r.stop_reason === null && r.status !== 'unfinished' && r.seconds !== null)).to.equal(true);
    expect(dataset.every((r) => r.usage.child.calls === 0 && r.usage.main.calls === r.calls)).to.equal(true);
    const smoke = (await derive('smoke')).rows;
    expect(smoke.every((r) => r.stop_reason !== null)).to.equal(true);
  });

  it('a session job that ran out of a budget stops for it (budget:<name>), not for the worker stop that follows', async () => {
    const t = new Timeline('run-budget');
    t.add(undefined, 0, 'RunStarted', runStartedData([{ jobId: 'c:cell:1', caseId: 'c', arm: 'cell', repetition: 1, seed: 1, meta: { scenario: 's' } }]));
    t.add('c:cell:1', 10, 'JobStarted', { caseId: 'c', arm: 'cell', repetition: 1, seed: 1 });
    t.add('c:cell:1', 20, 'BudgetExhausted', { budget: 'main_calls', limit: 3, used: 3 });
    t.add('c:cell:1', 30, 'WorkerStopped', { reason: 'answered', turns: 3, answer: null });
    t.add('c:cell:1', 1510, 'JobSucceeded', { passed: null });
    const s = t.events.reduce((acc, e) => (baseRowsProjection.canHandle(e) ? baseRowsProjection.evolve(acc, e) : acc), baseRowsProjection.initialState());
    const [only] = [...baseRows(s, [])];
    expect(only!.row).to.deep.include({ job_id: 'c:cell:1', status: 'succeeded', stop_reason: 'budget:main_calls', failure: null, calls: 0, seconds: 1.5 });
    expect(only!.start.meta).to.deep.equal({ scenario: 's' });
  });

  it("a suite's columns fold each job's events and merge with its base row by job id; a job whose row is null is left out", async () => {
    type Tools = { case_id: string; status: BaseRow['status']; tools: number };
    const columns: JobColumns<{ tools: number; keep: boolean }, Tools> = {
      start: (job) => ({ tools: 0, keep: job.caseId !== 'skip' }),
      evolve: (c, e) => (e.type === 'ToolCalled' ? { ...c, tools: c.tools + 1 } : c),
      row: (base, c) => (c.keep ? { case_id: base.case_id, status: base.status, tools: c.tools } : null),
    };
    const t = new Timeline('run-columns');
    const tool = { toolCallId: 'x', name: 'read', arguments: '{}', result: 'ok', isError: false };
    t.add('b:a:1', 0, 'JobStarted', { caseId: 'b', arm: 'a', repetition: 1, seed: 1 });
    t.add('skip:a:1', 0, 'JobStarted', { caseId: 'skip', arm: 'a', repetition: 1, seed: 1 });
    t.add('a:a:1', 0, 'JobStarted', { caseId: 'a', arm: 'a', repetition: 1, seed: 1 });
    t.add('b:a:1', 5, 'ToolCalled', { callId: 't-0', ...tool });
    t.add('a:a:1', 6, 'ToolCalled', { callId: 't-0', ...tool });
    t.add('b:a:1', 7, 'ToolCalled', { callId: 't-1', ...tool });
    t.add('skip:a:1', 8, 'ToolCalled', { callId: 't-0', ...tool });
    t.add('b:a:1', 9, 'JobFailed', { reason: 'error', message: 'boom' });
    t.add('nobody:a:1', 9, 'ToolCalled', { callId: 't-0', ...tool }); // never started: no row
    expect(await fold(reportRows({ columns }), t.events)).to.deep.equal([
      { case_id: 'a', status: 'unfinished', tools: 1 },
      { case_id: 'b', status: 'failed', tools: 2 },
    ]);
  });
});

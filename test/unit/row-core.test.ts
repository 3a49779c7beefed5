// The canonical row core of every built-in suite's rows, read through each suite's report from its
// golden log: complete, index for index with the rows, the job's identity as its events say, and
// the suite's verdict and time as its own row names them. A row that renames a core field without
// a `core` in its report is reported, naming the job and the field.
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';
import type { StoredEvent } from '../../src/events/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import {
  defineReport,
  deriveOutputs,
  genericColumns,
  NoRowCoresError,
  RowCoreError,
  summarize,
  type RowCore,
  type RunOutputs,
  type SuiteReport,
} from '../../src/projections/index.js';
import { ATTRIBUTIONS } from '../../src/projections/usage/index.js';
import { coresOf } from '../../src/view/rows.js';
import { requestedData, succeededData, Timeline } from '../support/build-events.js';

// The studies' suites come from their plugins, loaded on demand: every plugin is loaded for the registry's lookups.
await loadAllPlugins();

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));

async function golden(runId: string): Promise<{ events: StoredEvent[]; outputs: RunOutputs }> {
  const log = await FileEventLog.open({ root: GOLDEN });
  try {
    const events: StoredEvent[] = [];
    for await (const e of log.read(runId)) events.push(e);
    return { events, outputs: await deriveOutputs(runId, events, suiteNamed, log.blobs(runId)) };
  } finally {
    await log.close();
  }
}

/** Each job's last JobStarted, by job id: who the job is, as the log says. */
function started(events: readonly StoredEvent[]): Map<string, { caseId: string; arm: string; repetition: number }> {
  const out = new Map<string, { caseId: string; arm: string; repetition: number }>();
  for (const e of events) if (e.type === 'JobStarted') out.set(e.jobId!, { caseId: e.data.caseId, arm: e.data.arm, repetition: e.data.repetition });
  return out;
}

/** Each job's base row usage by attribution (what the core's usage must equal), from a report whose rows are the base rows. */
async function baseUsage(runId: string, events: readonly StoredEvent[]): Promise<Map<string, unknown>> {
  const bases = defineReport({
    columns: { start: () => null, evolve: (s) => s, row: (base) => ({ ...base }) },
    summarize: () => ({}),
    table: () => '',
  });
  const out = await deriveOutputs(runId, events, () => ({ report: bases }), undefined);
  return new Map(out.rows.map((r) => [String(r.job_id), r.usage]));
}

/** Every field of the core there, of its type, and the job's identity the log's. */
function expectComplete(core: RowCore, jobs: ReturnType<typeof started>): void {
  expect(Object.keys(core).sort()).to.deep.equal(['arm', 'case_id', 'job_id', 'passed', 'repetition', 'seconds', 'status', 'usage']);
  const job = jobs.get(core.job_id);
  expect(job, `${core.job_id} started`).to.not.equal(undefined);
  expect({ case_id: core.case_id, arm: core.arm, repetition: core.repetition }).to.deep.equal({
    case_id: job!.caseId,
    arm: job!.arm,
    repetition: job!.repetition,
  });
  expect(core.status).to.be.oneOf(['succeeded', 'failed', 'unfinished']);
  expect(core.passed === null || typeof core.passed === 'boolean').to.equal(true);
  expect(core.seconds === null || Number.isFinite(core.seconds)).to.equal(true);
  expect(Object.keys(core.usage)).to.deep.equal([...ATTRIBUTIONS]);
}

describe('row core: every built-in suite maps its rows to the canonical core', () => {
  for (const runId of ['smoke', 'smoke-usage-missing', 'dataset', 'memory-eviction-policy', 'memory-eviction-grade']) {
    it(`${runId}: the generic rows carry the core's names, read as they are (the default, no mapping)`, async () => {
      const { events, outputs } = await golden(runId);
      const cores = outputs.cores();
      expect(cores).to.have.length(outputs.rows.length).and.length.above(0);
      const jobs = started(events);
      const usage = await baseUsage(runId, events);
      for (const [i, core] of cores.entries()) {
        expectComplete(core, jobs);
        // The core's usage is the job's base row's, by attribution, recounted from usage.json's calls.
        expect(core.usage, core.job_id).to.deep.equal(usage.get(core.job_id));
        const row = outputs.rows[i]!;
        const { usage: _u, ...named } = core;
        expect(named).to.deep.equal({
          job_id: row.job_id,
          case_id: row.case_id,
          arm: row.arm,
          repetition: row.repetition,
          status: row.status,
          passed: row.passed,
          seconds: row.seconds,
        });
        // The core's usage is the job's calls by attribution, as many as the row counts.
        expect(
          ATTRIBUTIONS.reduce((n, a) => n + core.usage[a].calls, 0),
          core.job_id,
        ).to.equal(row.calls);
      }
      expect(outputs.summaryLayout).to.deep.equal({ groups: [{ key: 'arms' }] });
    });
  }

  it("context-snapshot: the protocol row's `case`, `artifact_correct` and protocol `seconds`, with the job's status", async () => {
    const runId = 'context-snapshot';
    const { events, outputs } = await golden(runId);
    const cores = outputs.cores();
    expect(cores).to.have.length(outputs.rows.length).and.length.above(0);
    const jobs = started(events);
    const usage = await baseUsage(runId, events);
    for (const [i, core] of cores.entries()) {
      expectComplete(core, jobs);
      expect(core.usage, core.job_id).to.deep.equal(usage.get(core.job_id));
      const row = outputs.rows[i]!;
      expect(core).to.include({
        job_id: row.job_id,
        case_id: row.case,
        arm: row.arm,
        repetition: row.repetition,
        passed: row.artifact_correct,
        seconds: row.seconds,
      });
    }
    // Some pass and some do not: the verdict is read, not defaulted.
    expect(new Set(cores.map((c) => c.passed))).to.have.property('size', 2);
    expect(outputs.summaryLayout).to.deep.equal({ groups: [{ key: null }] });
  });

  it("context-engineering: the cell row's `cell`, `case`, `success` and `wall_seconds`", async () => {
    const runId = 'context-engineering';
    const { events, outputs } = await golden(runId);
    const cores = outputs.cores();
    expect(cores).to.have.length(outputs.rows.length).and.length.above(0);
    const jobs = started(events);
    const usage = await baseUsage(runId, events);
    for (const [i, core] of cores.entries()) {
      expectComplete(core, jobs);
      expect(core.usage, core.job_id).to.deep.equal(usage.get(core.job_id));
      const row = outputs.rows[i]!;
      expect(core).to.include({ job_id: row.job_id, arm: row.cell, case_id: row.case, status: row.status, passed: row.success, seconds: row.wall_seconds });
    }
    expect(outputs.summaryLayout.groups.map((g) => g.key)).to.deep.equal(['cells', 'rollup']);
  });

  it("memory-eviction (QA): the answer rows are ungraded, their identity and time the job's", async () => {
    const runId = 'memory-eviction';
    const { events, outputs } = await golden(runId);
    const cores = outputs.cores();
    expect(cores).to.have.length(outputs.rows.length).and.length.above(0);
    const jobs = started(events);
    const usage = await baseUsage(runId, events);
    for (const [i, core] of cores.entries()) {
      expectComplete(core, jobs);
      expect(core.usage, core.job_id).to.deep.equal(usage.get(core.job_id));
      const row = outputs.rows[i]!;
      expect(core.passed).to.equal(null);
      expect(core.arm).to.equal(row.policy);
      expect(core.status).to.equal(row.status === 'answered' ? 'succeeded' : row.status);
    }
    expect(outputs.summaryLayout).to.deep.equal({ groups: [{ key: null }] });
  });
});

describe("row core: the usage is the job's own agent calls", () => {
  it("leaves a judge's calls out, as the base row and usage.json's by-attribution totals do", async () => {
    const t = new Timeline('judged');
    const jobId = 'c:a:1';
    t.add(undefined, 0, 'RunStarted', {
      suite: 'judged',
      config: {},
      configHash: 'h',
      seed: 1,
      orderSeed: 1,
      jobs: [{ jobId, caseId: 'c', arm: 'a', repetition: 1, seed: 1 }],
      model: { name: 'm', scripted: false, baseUrlEnv: 'X', apiKeyEnv: null },
      concurrency: 1,
      provenance: {},
    });
    t.add(jobId, 0, 'JobStarted', { caseId: 'c', arm: 'a', repetition: 1, seed: 1 });
    t.add(jobId, 10, 'ProviderCallRequested', requestedData('worker/turn-1/attempt-1', { attribution: 'main' }));
    t.add(jobId, 20, 'ProviderCallSucceeded', succeededData('worker/turn-1/attempt-1', { usage: { prompt: 5, completion: 2, total: 7 } }));
    t.add(jobId, 30, 'ProviderCallRequested', requestedData('grader/judge/attempt-1', { attribution: 'grading' }));
    t.add(jobId, 40, 'ProviderCallSucceeded', succeededData('grader/judge/attempt-1', { usage: { prompt: 50, completion: 20, total: 70 } }));
    t.add(jobId, 50, 'JobSucceeded', { passed: true });
    const outputs = await deriveOutputs('judged', t.events, () => undefined, undefined);
    const [core] = outputs.cores();
    expect(core!.usage.main.calls).to.equal(1);
    expect(core!.usage.main.usage.fields.totalTokens.sum).to.equal(7);
    expect(ATTRIBUTIONS.reduce((n, a) => n + core!.usage[a].calls, 0)).to.equal(1);
    // usage.json has both calls: the judge's is counted there, apart from the job's row.
    expect(outputs.usage.calls).to.have.length(2);
  });
});

describe('row core: a row that does not give it is reported', () => {
  // A user suite's own report that renames `case_id` to `question` and gives no `core`.
  const renaming: SuiteReport = defineReport({
    columns: {
      ...genericColumns,
      row: (base, state) => {
        const { case_id, ...rest } = genericColumns.row(base, state)!;
        return { ...rest, question: case_id };
      },
    },
    summarize: () => ({}),
    table: () => '',
  });

  it('names the job and the missing field, when asked for the cores only (the rows are published as they were)', async () => {
    const { events } = await golden('smoke');
    const outputs = await deriveOutputs('smoke', events, () => ({ report: renaming }), undefined);
    expect(outputs.rows.length).to.be.above(0);
    expect(outputs.rows[0]).to.have.property('question');
    expect(() => outputs.cores()).to.throw(RowCoreError, /^the row of job \S+ has no core field `case_id` \(a string\)/);
    // The viewer shows it as the run's error rather than failing.
    const got = coresOf(outputs);
    expect(got).to.be.instanceOf(RowCoreError);
    expect((got as RowCoreError).field).to.equal('case_id');
  });

  it("checks a suite's own `core` as well: a user suite's file is not type-checked", async () => {
    const { events } = await golden('smoke');
    const sloppy = defineReport({
      columns: genericColumns,
      core: (row, job) => ({ ...job, passed: row.passed, repetition: String(row.repetition) as unknown as number }),
      summarize,
      table: () => '',
    });
    const outputs = await deriveOutputs('smoke', events, () => ({ report: sloppy }), undefined);
    expect(() => outputs.cores()).to.throw(RowCoreError, /no core field `repetition` \(a whole number\)/);
  });

  it('a report made by hand, without defineReport, gives no cores: said so, naming the suite', async () => {
    const { events } = await golden('smoke');
    const generic = defineReport({ columns: genericColumns, summarize, table: () => '' });
    const byHand: SuiteReport = {
      start() {
        const run = generic.start();
        return {
          evolve: (e) => run.evolve(e),
          finish: (calls, header, answers) => {
            const { cores: _c, ...out } = run.finish(calls, header, answers);
            return out;
          },
        };
      },
    };
    const outputs = await deriveOutputs('smoke', events, () => ({ report: byHand }), undefined);
    expect(() => outputs.cores()).to.throw(NoRowCoresError, /the report of suite smoke gives no row cores/);
  });
});

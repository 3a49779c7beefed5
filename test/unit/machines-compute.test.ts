// The compute job shape through the real coordinator and job machine, on the in-memory log: what
// a job records, that a run of compute jobs records no model, that replay recomputes a job and
// names a changed result, that resume appends only what a job had not recorded, and that a
// suite's own files replace the four outputs.
import { expect } from 'chai';
import { z } from 'zod';
import { steppingClock } from '../../src/core/clock.js';
import type { EvalogEvent, StoredEvent } from '../../src/events/index.js';
import { baseConfigShape } from '../../src/harness/suite/base-config.js';
import { decideComputed } from '../../src/harness/compute/index.js';
import { defineSuite, type DefinedSuite } from '../../src/harness/suite/index.js';
import { executeRun, planRun } from '../../src/harness/orchestration/launch.js';
import { replayRun, resumeRun } from '../../src/harness/orchestration/replay-resume.js';
import { MemoryEventLog } from '../../src/log/memory/index.js';
import { defineOutputs, jsonLines, outputFileNames, rebuildOutputs } from '../../src/projections/index.js';
import { TEST_CONFIG } from '../support/machines.js';

const Config = z.object({ ...baseConfigShape, factor: z.number() }).strict();
type Config = z.infer<typeof Config>;

/** A suite of compute jobs: each case's number times the config's factor, per arm; its own file lists the products. */
function squares(factor: number, computed: string[] = []): DefinedSuite {
  return defineSuite<Config, number>({
    name: 'compute-test',
    description: 'products, computed',
    shape: 'compute',
    configSchema: Config,
    defaults: { ...TEST_CONFIG, provider: { ...TEST_CONFIG.provider, maxRetryAfterMs: 1 }, factor },
    prepare: async () => ({ cases: [1, 2, 3].map((n) => ({ id: `n${n}`, data: n })) }),
    arms: () => ['a', 'b'],
    compute: {
      compute: (c, job, config) => {
        computed.push(job.jobId);
        return { product: c.data * factor, arm: job.arm, recorded: config.factor, absent: undefined };
      },
    },
    outputs: defineOutputs<string[]>({
      files: ['products.jsonl'],
      initialState: () => [],
      evolve: (s, e) => (e.type === 'JobComputed' ? [...s, `${e.jobId}=${e.data.output.product}`] : s),
      finish: (s) => ({ files: [{ path: 'products.jsonl', content: jsonLines([...s].sort()) }], table: () => `${s.length} products\n` }),
    }),
  });
}

async function runAll(suite: DefinedSuite, log: MemoryEventLog, runId: string) {
  const prepared = await suite.configure(suite.defaults()).prepare();
  return executeRun({ suite: prepared, log, runId, started: planRun(prepared, { scripted: true }), endpoint: { scripted: true }, clock: steppingClock(0, 5) });
}

async function eventsOf(log: MemoryEventLog, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  return out;
}

describe('compute jobs', () => {
  it('decide: the result is recorded as the plain JSON it reads back as (undefined members dropped)', () => {
    expect(decideComputed({ b: 1, a: { c: undefined, d: [1] } })).to.deep.equal([{ type: 'JobComputed', data: { output: { a: { d: [1] }, b: 1 } } }]);
  });

  it('each job records JobStarted, JobComputed and JobSucceeded; the run records no model and calls none', async () => {
    const log = MemoryEventLog.open();
    const out = await runAll(squares(3), log, 'r');
    expect(out.status).to.equal('completed');
    const events = await eventsOf(log, 'r');
    const first = events[0]!;
    expect(first.type === 'RunStarted' && first.data.model).to.deep.equal({ name: 'none', scripted: false, baseUrlEnv: null, apiKeyEnv: null });
    const job = events.filter((e) => e.jobId === 'n2:b:1').map((e) => [e.type, e.data]);
    const seed = first.type === 'RunStarted' ? first.data.jobs.find((j) => j.jobId === 'n2:b:1')!.seed : null;
    expect(job).to.deep.equal([
      ['JobStarted', { caseId: 'n2', arm: 'b', repetition: 1, seed }],
      ['JobComputed', { output: { arm: 'b', product: 6, recorded: 3 } }],
      ['JobSucceeded', { passed: null }],
    ]);
    expect(events.filter((e) => e.type.startsWith('ProviderCall'))).to.deep.equal([]);
  });

  it("the suite's own files replace rows/summary/usage/run.json, folded from the log", async () => {
    const log = MemoryEventLog.open();
    await runAll(squares(2), log, 'r');
    const outputs = await rebuildOutputs(log, 'r', (name) => (name === 'compute-test' ? squares(2) : undefined));
    expect(outputFileNames(outputs)).to.deep.equal(['products.jsonl']);
    expect(outputs.own!.files[0]!.content).to.equal(['n1:a:1=2', 'n1:b:1=2', 'n2:a:1=4', 'n2:b:1=4', 'n3:a:1=6', 'n3:b:1=6'].map((l) => `"${l}"\n`).join(''));
    expect(outputs.table()).to.equal('6 products\n');
  });

  it('replay recomputes every job and names the field of a result that changed', async () => {
    const log = MemoryEventLog.open();
    await runAll(squares(3), log, 'r');
    const same = await replayRun(log, 'r', () => squares(3));
    expect(same).to.deep.include({ ok: true, jobs: 6, incompleteJobs: 0 });
    // The recorded config says factor 3; a computation that now multiplies by 4 gives another product.
    const changed = await replayRun(log, 'r', () => squares(4));
    expect(changed.ok).to.equal(false);
    if (changed.ok) return;
    expect(changed.divergence.logged.type).to.equal('JobComputed');
    expect(changed.divergence.fields).to.deep.equal(['data.output.product']);
  });

  it('resume after a kill appends only what the jobs had not recorded: nothing for an ended job, no second start for the one in flight', async () => {
    const whole = MemoryEventLog.open();
    await runAll(squares(3), whole, 'r');
    const events = await eventsOf(whole, 'r');
    // The kill: after the third job's end, with the next job started (its JobStarted is logged, its result is not).
    const ends = events.flatMap((e, i) => (e.type === 'JobSucceeded' ? [i] : []));
    const cut = events.slice(0, ends[2]! + 1);
    const inFlight = events.find((e, i) => i > ends[2]! && e.type === 'JobStarted')!;
    const log = MemoryEventLog.open();
    await log.append([...cut, inFlight].map(({ seq: _s, ...e }) => e as EvalogEvent));
    const computed: string[] = [];
    const out = await resumeRun(log, 'r', { endpoint: { scripted: true }, suiteOf: () => squares(3, computed), clock: steppingClock(1000, 5) });
    expect(out.status).to.equal('completed');
    const after = await eventsOf(log, 'r');
    const ended = new Set(cut.flatMap((e) => (e.type === 'JobSucceeded' ? [e.jobId!] : [])));
    expect(after.slice(cut.length + 1).filter((e) => e.jobId !== undefined && ended.has(e.jobId))).to.deep.equal([]);
    expect(after.filter((e) => e.type === 'JobStarted')).to.have.length(6);
    expect(after.filter((e) => e.type === 'JobComputed')).to.have.length(6);
    // Recomputed to compare (the one mechanism of replay and resume), but recorded once.
    expect([...computed].sort()).to.deep.equal(['n1:a:1', 'n1:b:1', 'n2:a:1', 'n2:b:1', 'n3:a:1', 'n3:b:1']);
  });
});

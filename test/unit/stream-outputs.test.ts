import { expect } from 'chai';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { STREAM_LIMITS, streamOutputs, type StreamLimits } from '../../src/projections/stream/index.js';
import { listFiles, tempDir } from '../support/cli.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';
import type { DataOf, PlannedJob, StoredEvent } from '../../src/events/index.js';
import {
  defineReport,
  deriveOutputs,
  genericColumns,
  genericSummaryFold,
  writeOutputs,
  type OutputHooksOf,
  type SuiteReport,
} from '../../src/projections/index.js';
import { failedData, requestedData, succeededData, Timeline } from '../support/build-events.js';

await loadAllPlugins();

const GOLDEN = fileURLToPath(new URL('../replay/golden/', import.meta.url));

// Every golden log but the suites that publish files of their own (derived in memory, as before).
const STREAMED = ['smoke', 'smoke-usage-missing', 'dataset', 'context-snapshot', 'context-engineering', 'memory-eviction'];
const OWN_FILES = ['memory-eviction-policy', 'memory-eviction-grade'];

// Chunks of two rows and three calls: every golden run spills many sorted runs and merges them.
const TINY = (root: string): StreamLimits => ({ rows: 2, rowChars: 1_000_000, calls: 3, root });

async function expectGolden(runId: string, limits: StreamLimits, expected = runId): Promise<{ streamed: boolean; spilled: { rows: number; calls: number } }> {
  const log = await FileEventLog.open({ root: GOLDEN });
  const tmp = await tempDir();
  try {
    const outputs = await streamOutputs(runId, () => log.read(runId), suiteNamed, log.blobs(runId), limits);
    const spilled = outputs.spilled();
    await outputs.write(tmp.dir);
    const files = await listFiles(join(GOLDEN, expected, 'expected'));
    expect(await listFiles(tmp.dir)).to.deep.equal(files);
    for (const f of files) expect(await readFile(join(tmp.dir, f), 'utf8'), f).to.equal(await readFile(join(GOLDEN, expected, 'expected', f), 'utf8'));
    return { streamed: outputs.streamed, spilled };
  } finally {
    await log.close();
    await tmp.cleanup();
  }
}

describe('streamed outputs (rows and calls spilled to sorted runs, merged back)', () => {
  for (const runId of STREAMED) {
    it(`${runId}: every file byte for byte the committed one, in one chunk and spilled in chunks of two rows`, async () => {
      const whole = await expectGolden(runId, STREAM_LIMITS);
      expect(whole.streamed, 'streamed').to.equal(true);
      expect(whole.spilled).to.deep.equal({ rows: 0, calls: 0 });
      const spill = await tempDir();
      try {
        const tiny = await expectGolden(runId, TINY(spill.dir));
        expect(tiny.streamed).to.equal(true);
        expect(tiny.spilled.rows, 'sorted runs of rows').to.be.greaterThan(1);
        expect(tiny.spilled.calls, 'sorted runs of calls').to.be.greaterThan(1);
        // The spill is removed once the files are written.
        expect(await readdir(spill.dir)).to.deep.equal([]);
      } finally {
        await spill.cleanup();
      }
    });
  }
  for (const runId of OWN_FILES) {
    it(`${runId}: a suite with files of its own is derived in memory, byte for byte`, async () => {
      const r = await expectGolden(runId, STREAM_LIMITS);
      expect(r.streamed).to.equal(false);
    });
  }
});

// A run with what only job-by-job streaming has to get right: a job retried after its row was
// spilled (its last attempt's row stands), a retried job left unfinished, a job that never ended,
// calls of no started job, and rows sorted by a suite's order apart from job id.
const job = (caseId: string): PlannedJob => ({ jobId: `${caseId}:a:1`, caseId, arm: caseId === 'e' ? 'b' : 'a', repetition: 1, seed: 7 });
const PLAN = [job('c'), job('a'), job('b'), job('d'), job('e')];
const STARTED: DataOf<'RunStarted'> = {
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

function retriedRun(late = false): StoredEvent[] {
  const t = new Timeline('retried');
  t.add(undefined, 0, 'RunStarted', STARTED);
  t.add(undefined, 0, 'ProviderCallRequested', requestedData('run-level/attempt-1', { attribution: 'main' }));
  for (const j of PLAN) {
    const id = j.jobId;
    t.add(id, 1, 'JobStarted', { caseId: j.caseId, arm: j.arm, repetition: 1, seed: 7 });
    t.add(id, 2, 'ProviderCallRequested', requestedData('answer/attempt-1', { attribution: 'main' }));
    if (j.caseId === 'e') continue; // never ends: published unfinished
    if (j.caseId === 'b' || j.caseId === 'd') {
      t.add(id, 3, 'ProviderCallFailed', failedData('answer/attempt-1', { kind: 'client_error', status: 400, retryable: false }));
      t.add(id, 4, 'JobFailed', { reason: 'provider_failed', message: 'client_error' });
    } else {
      t.add(id, 3, 'ProviderCallSucceeded', succeededData('answer/attempt-1'));
      t.add(id, 4, 'JobSucceeded', { passed: j.caseId === 'a' });
    }
  }
  if (late) t.add('a:a:1', 5, 'ProviderCallRequested', requestedData('late/attempt-1', { attribution: 'main' }));
  t.add(undefined, 6, 'RunCompleted', { status: 'completed', jobsSucceeded: 2, jobsFailed: 2 });
  t.add(undefined, 10, 'RunReopened', { retry: 1, reason: 'errors', jobIds: ['b:a:1', 'd:a:1'] });
  for (const id of ['b:a:1', 'd:a:1']) {
    const j = PLAN.find((p) => p.jobId === id)!;
    t.add(id, 11, 'JobStarted', { caseId: j.caseId, arm: 'a', repetition: 1, seed: 7, attempt: 2 });
    t.add(id, 12, 'ProviderCallRequested', requestedData('try-2/answer/attempt-1', { attribution: 'main' }));
    if (id === 'd:a:1') continue; // the retry was cut off: its last attempt is unfinished
    t.add(id, 13, 'ProviderCallSucceeded', succeededData('try-2/answer/attempt-1', { usage: { prompt: 1, completion: 1, total: 2 } }));
    t.add(id, 14, 'JobSucceeded', { passed: true });
  }
  return t.events;
}

async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) out[f] = await readFile(join(dir, f), 'utf8');
  return out;
}

/** The files `deriveOutputs` writes (every row in memory): what streaming must equal. */
async function inMemoryFiles(runId: string, events: StoredEvent[], hooksOf: OutputHooksOf): Promise<Record<string, string>> {
  const tmp = await tempDir();
  try {
    await writeOutputs(tmp.dir, await deriveOutputs(runId, events, hooksOf, undefined));
    return await filesOf(tmp.dir);
  } finally {
    await tmp.cleanup();
  }
}

async function streamedFiles(runId: string, events: StoredEvent[], hooksOf: OutputHooksOf, limits: StreamLimits) {
  const tmp = await tempDir();
  try {
    const outputs = await streamOutputs(runId, () => events, hooksOf, undefined, limits);
    const written = await outputs.write(tmp.dir);
    return { files: await filesOf(tmp.dir), streamed: outputs.streamed, rows: written.rows };
  } finally {
    await tmp.cleanup();
  }
}

// Rows by arm descending, then (ties) job id: a suite's own order.
const byArmDescending: SuiteReport = defineReport({
  columns: genericColumns,
  compare: (a, b) => (a.arm < b.arm ? 1 : a.arm > b.arm ? -1 : 0),
  summary: genericSummaryFold,
  table: () => '',
});

describe('streamed outputs of retried, unfinished and late jobs', () => {
  for (const [name, hooksOf] of [
    ['the generic report', suiteNamed],
    ['a report with its own row order', () => ({ report: byArmDescending })],
  ] as const) {
    it(`${name}: the last attempt's row stands, unfinished jobs are published, every call is in usage.json — as in memory`, async () => {
      const events = retriedRun();
      const expected = await inMemoryFiles('retried', events, hooksOf);
      const rows = expected['rows.jsonl']!.trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { job_id: string; status: string; attempts?: number });
      expect(rows.map((r) => [r.job_id, r.status, r.attempts ?? 1])).to.have.deep.members([
        ['a:a:1', 'succeeded', 1],
        ['b:a:1', 'succeeded', 2],
        ['c:a:1', 'succeeded', 1],
        ['d:a:1', 'unfinished', 2],
        ['e:a:1', 'unfinished', 1],
      ]);
      expect((JSON.parse(expected['usage.json']!) as { calls: unknown[] }).calls).to.have.length(8);
      for (const limits of [STREAM_LIMITS, { rows: 1, rowChars: 1, calls: 1 }]) {
        const got = await streamedFiles('retried', events, hooksOf, limits);
        expect(got.streamed).to.equal(true);
        expect(got.rows).to.equal(5);
        expect(got.files).to.deep.equal(expected);
      }
    });
  }

  it('an event of a job after its end is derived in memory instead: the same bytes', async () => {
    const events = retriedRun(true);
    const got = await streamedFiles('retried', events, suiteNamed, { rows: 1, rowChars: 1, calls: 1 });
    expect(got.streamed).to.equal(false);
    expect(got.files).to.deep.equal(await inMemoryFiles('retried', events, suiteNamed));
  });

  it('a report made by hand (no job-by-job form) is derived in memory', async () => {
    const byHand: SuiteReport = { start: () => ({ evolve() {}, finish: () => ({ rows: [], summary: {}, files: [], table: () => '' }) }) };
    const got = await streamedFiles('retried', retriedRun(), () => ({ report: byHand }), STREAM_LIMITS);
    expect(got.streamed).to.equal(false);
    expect(got.files['rows.jsonl']).to.equal('');
  });
});

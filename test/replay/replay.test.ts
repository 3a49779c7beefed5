import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { FileEventLog } from '../../src/log/file/index.js';
import { replayRun } from '../../src/harness/orchestration/replay-resume.js';
import { boundMemoryEvictionSteps, boundMemoryEvictionSuite, goldenDatasetSuite } from './golden.js';
import { loadAllPlugins, suiteNamed } from '../../src/app/index.js';

// The golden logs include the studies' runs: every plugin is loaded, so the registry finds their suites.
await loadAllPlugins();

const GOLDEN = fileURLToPath(new URL('./golden/', import.meta.url));

describe('replay of golden logs', function () {
  this.timeout(60_000);
  let log: FileEventLog;
  before(async () => {
    log = await FileEventLog.open({ root: GOLDEN });
  });
  after(() => log.close());

  it('smoke: every re-emitted event matches the log', async () => {
    const report = await replayRun(log, 'smoke', suiteNamed);
    expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 16, incompleteJobs: 0 });
  });

  it('context-snapshot: every re-emitted event matches the log (tools and grader re-run in the sandbox)', async () => {
    const report = await replayRun(log, 'context-snapshot', suiteNamed);
    expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 16, incompleteJobs: 0 });
  });

  it('context-engineering: every re-emitted event matches, the injections and the worker restart (rebuilt from the log) included', async () => {
    const report = await replayRun(log, 'context-engineering', suiteNamed);
    expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 10, incompleteJobs: 0 });
  });

  it('memory-eviction: the QA run replays against the regenerated synthetic dataset', async () => {
    const { suite, cleanup } = boundMemoryEvictionSuite();
    try {
      const report = await replayRun(log, 'memory-eviction', () => suite);
      expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 90, incompleteJobs: 0 });
    } finally {
      cleanup();
    }
  });

  it('memory-eviction-policy: run-policy replays, every job recomputed from the regenerated dataset and compared', async () => {
    const { policy, cleanup } = boundMemoryEvictionSteps();
    try {
      const report = await replayRun(log, 'memory-eviction-policy', () => policy);
      expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 90, incompleteJobs: 0 });
    } finally {
      cleanup();
    }
  });

  it('memory-eviction-grade: grade-qa replays, every answer in its plan graded again and compared', async () => {
    const { grade, cleanup } = boundMemoryEvictionSteps();
    try {
      const report = await replayRun(log, 'memory-eviction-grade', () => grade);
      expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 90, incompleteJobs: 0 });
    } finally {
      cleanup();
    }
  });

  it('dataset: every re-emitted event matches, the immediate grades included (cases reread from the pinned file)', async () => {
    const report = await replayRun(log, 'dataset', () => goldenDatasetSuite());
    expect(report, JSON.stringify(report).slice(0, 500)).to.deep.include({ ok: true, jobs: 42, incompleteJobs: 0 });
  });

  it('smoke-edited: the edited tool result is the first divergence, named field by field', async () => {
    const report = await replayRun(log, 'smoke-edited', suiteNamed);
    expect(report.ok).to.equal(false);
    if (report.ok) return;
    const d = report.divergence;
    expect(d.logged.type).to.equal('ToolCalled');
    expect(d.fields).to.deep.equal(['data.result']);
    expect((d.logged.data as { result: string }).result).to.match(/\(edited\)$/);
    expect((d.emitted as { data: { result: string } }).data.result).to.not.match(/edited/);
    // It is the only edit, so every earlier event replayed cleanly.
    expect(d.seq).to.equal(d.logged.seq);
  });
});

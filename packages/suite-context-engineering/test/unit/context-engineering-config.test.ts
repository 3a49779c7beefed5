import { expect } from 'chai';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, FileEventLog, resume } from 'evalog';
import type { EvalogEvent } from 'evalog';
// Engine internals with no public counterpart: an event's id, the config resolution and the plan
// of a run (what RunStarted records) without running it, and resume's refusal class.
import { eventId } from '../../../../src/events/index.js';
import { resolveConfig } from '../../../../src/harness/orchestration/config.js';
import { planRun } from '../../../../src/harness/orchestration/launch.js';
import { ResumeRefusedError } from '../../../../src/harness/orchestration/replay-resume.js';
import { tempDir } from '../../../../test/support/cli.js';
import type { ContextEngineeringConfig } from '../../src/config.js';
import { contextEngineeringDefinition, defaultConfig, describeCellChanges, loadScenarios } from '../../src/index.js';
import { suite } from './context-engineering-support.js';

const CELL_FIELDS = [
  'agent',
  'budget',
  'concurrency',
  'context',
  'fixture',
  'provider',
  'repetitions',
  'retries',
  'revision',
  'sampling',
  'scoringRule',
  'switches',
  'timeouts',
];

describe('context-engineering frozen cells', () => {
  it('the default config has two full cells, baseline and candidate, which are the arms', () => {
    const c = defaultConfig();
    expect(Object.keys(c.cells)).to.deep.equal(['baseline', 'candidate']);
    for (const cell of Object.values(c.cells)) expect(Object.keys(cell).sort()).to.deep.equal(CELL_FIELDS);
    expect(c.cells.baseline!.agent.preset).to.not.equal(c.cells.candidate!.agent.preset);
    expect(contextEngineeringDefinition.arms(c)).to.deep.equal(['baseline', 'candidate']);
  });

  it('RunStarted records the whole cells before any job starts, and each planned job its cell and fixture', async () => {
    const started = planRun(await suite.configure(defaultConfig()).prepare(), { scripted: true });
    expect(started.config.cells).to.deep.equal(defaultConfig().cells);
    expect(started.jobs).to.have.length(10);
    const meta = started.jobs.find((j) => j.jobId === 'recovery_worker_restart:candidate:1')!.meta!;
    expect(meta).to.include({
      scenario: 'recovery',
      recovery: 'worker_restart',
      cell_revision: 'ce-cell-candidate.1',
      preset: 'verify-v1',
      fixture_revision: 'ce-fixtures.1',
    });
    expect(meta.fixture_sha256).to.match(/^[0-9a-f]{64}$/);
    // Both cells of a case and repetition share a seed; the shuffled order is recorded as it is.
    const seeds = new Set(started.jobs.filter((j) => j.caseId === 'key_negation').map((j) => j.seed));
    expect(seeds.size).to.equal(1);
  });

  it('a run whose repetitions differ from the frozen cells is refused, naming the cell field', async () => {
    expect(
      await resolveConfig(suite, undefined, { repetitions: 3 }).then(
        () => null,
        (e: unknown) => e,
      ),
    )
      .to.be.instanceOf(ConfigError)
      .and.match(/field cells\.baseline\.repetitions: is 1 but the run's repetitions is 3/);
  });

  it('an unknown key in a cell is refused with its full path', async () => {
    const tmp = await tempDir();
    try {
      const file = join(tmp.dir, 'c.json');
      const cells = defaultConfig().cells;
      await writeFile(file, JSON.stringify({ cells: { ...cells, candidate: { ...cells.candidate, temperature: 1 } } }));
      expect(
        await resolveConfig(suite, file, {}).then(
          () => null,
          (e: unknown) => e,
        ),
      )
        .to.be.instanceOf(ConfigError)
        .and.match(/field cells\.candidate\.temperature/);
    } finally {
      await tmp.cleanup();
    }
  });

  it('a cell naming another fixture or prompt revision than the files on disk is refused, naming the field', async () => {
    const cells = defaultConfig().cells;
    const withCell = (edit: object): ContextEngineeringConfig => ({ ...defaultConfig(), cells: { ...cells, candidate: { ...cells.candidate!, ...edit } } });
    const refusal = (c: ContextEngineeringConfig) =>
      contextEngineeringDefinition.prepare(c).then(
        () => null,
        (e: unknown) => e,
      );
    expect(await refusal(withCell({ fixture: { revision: 'ce-fixtures.0', variant: 'default' } })))
      .to.be.instanceOf(ConfigError)
      .and.match(/field cells\.candidate\.fixture\.revision/);
    expect(await refusal(withCell({ agent: { preset: 'verify-v1', promptRevision: 'ce-prompts.0' } })))
      .to.be.instanceOf(ConfigError)
      .and.match(/field cells\.candidate\.agent\.promptRevision/);
  });

  it('a bad scenario file is refused, naming the file and the field', async () => {
    const tmp = await tempDir();
    try {
      const good = loadScenarios().find((s) => s.id === 'stale_evidence')!;
      await mkdir(join(tmp.dir, 's'));
      await writeFile(
        join(tmp.dir, 's', `${good.id}.json`),
        JSON.stringify({ ...good, injections: [{ id: 'x', kind: 'worker_restart', after: { reads: 'a', count: 1 }, notice: null }] }),
      );
      expect(() => loadScenarios(pathToFileURL(join(tmp.dir, 's/')))).to.throw(
        /stale_evidence\.json: field injections\.0\.after: this kind needs another trigger/,
      );
    } finally {
      await tmp.cleanup();
    }
  });

  it('names the cell fields in which a recorded config differs from the cells manifest', () => {
    const c = defaultConfig();
    expect(describeCellChanges(c as unknown as Record<string, unknown>)).to.deep.equal([]);
    const old = { ...c, cells: { ...c.cells, candidate: { ...c.cells.candidate!, agent: { preset: 'skim-v1', promptRevision: 'ce-prompts.1' } } } };
    expect(describeCellChanges(old as unknown as Record<string, unknown>)).to.deep.equal(['cells.candidate.agent.preset: recorded "skim-v1", now "verify-v1"']);
  });

  it('resume refuses a run whose cells manifest changed since it started, and names the changed cell field', async () => {
    const tmp = await tempDir();
    const log = await FileEventLog.open({ root: tmp.dir });
    try {
      const data = planRun(await suite.configure(defaultConfig()).prepare(), { scripted: true });
      const cells = data.config.cells as ContextEngineeringConfig['cells'];
      data.config = { ...data.config, cells: { ...cells, baseline: { ...cells.baseline!, budget: { ...cells.baseline!.budget, mainCalls: 8 } } } };
      data.provenance = { ...data.provenance, manifests: { ...(data.provenance.manifests as object), 'context-engineering/cells.v1.json': '0'.repeat(64) } };
      const started = {
        id: eventId('old', undefined, 1),
        runId: 'old',
        type: 'RunStarted',
        v: 1,
        at: '2026-01-01T00:00:00.000Z',
        actor: 'run',
        data,
      } as EvalogEvent;
      await log.append([started]);
      const refused = await resume({ log, runId: 'old', suite }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).to.be.instanceOf(ResumeRefusedError);
      expect((refused as Error).message)
        .to.contain('context-engineering/cells.v1.json')
        .and.contain('cells.baseline.budget.mainCalls: recorded 8, now 12');
    } finally {
      await log.close();
      await tmp.cleanup();
    }
  });
});

import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listFiles, readJsonl, runEvalogHere, tempDir, withoutWallClock } from '../../../../test/support/cli.js';
import { startNatsServer } from '../../../../test/support/nats-server.js';

const FILES = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json'];
const CASES = ['key_negation', 'query_failure', 'recovery_context_switch', 'recovery_worker_restart', 'stale_evidence'];

describe('evalog run context-engineering (CLI in process, scripted model)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(() => tmp.cleanup());

  it('prints one result line per cell × scenario: the candidate cell passes every scenario, the baseline none', async () => {
    const r = await runEvalogHere(['run', 'context-engineering', '--out', 'runs/a'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(/scripted model/);
    expect(r.stdout).to.match(/scripted model: not a real model result/);
    for (const c of CASES) {
      expect(r.stdout, c).to.match(new RegExp(`^candidate\\s+${c}\\s+1\\s+1/1\\s`, 'm'));
      expect(r.stdout, c).to.match(new RegExp(`^baseline\\s+${c}\\s+1\\s+0/1\\s`, 'm'));
    }
    expect(r.stdout).to.match(/^cell\s+scenario\s+n\s+success\s+state\s+evidence\s+stale\s+dup\s+main\s+query\s+failed\s+injected\s+tokens\s+stop\s+wall s$/m);
    const files = await listFiles(join(tmp.dir, 'runs/a'));
    for (const f of [...FILES, '.gitignore', 'log/events.evlog']) expect(files).to.include(f);
  });

  it('run.json holds both frozen cells whole, and the job order they share', async () => {
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/a/run.json'), 'utf8'));
    expect(Object.keys(run.config.cells)).to.deep.equal(['baseline', 'candidate']);
    expect(run.config.cells.candidate).to.deep.include({ scoringRule: 'state-and-evidence.v1', repetitions: 1 });
    expect(run.config.cells.candidate.budget).to.deep.equal({ mainCalls: 12, modelCalls: 16, deadlineMs: 120000 });
    expect(run.config.cells.baseline.agent.preset).to.equal('skim-v1');
    expect(run.job_order).to.have.length(10);
    expect(Object.keys(run.provenance.manifests)).to.include.members([
      'context-engineering/cells.v1.json',
      'context-engineering/prompts.v1.json',
      'context-engineering/scenarios/stale_evidence.json',
    ]);
    const rows = await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'));
    expect(rows.map((row) => [row.cell, row.case])).to.have.length(10);
    const restart = rows.find((row) => row.job_id === 'recovery_worker_restart:candidate:1')!;
    expect(restart).to.deep.include({ success: true, duplicate_effects: 0, injections: { worker_restart: 1 } });
  });

  it('replay re-emits every event of the run; rebuild writes the same bytes', async () => {
    const replay = await runEvalogHere(['replay', 'runs/a'], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(10 jobs\)/);
    const rebuilt = await runEvalogHere(['rebuild', 'runs/a', '--out', 'rebuilt-a'], { cwd: tmp.dir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    for (const f of FILES) {
      const live = await readFile(join(tmp.dir, 'runs/a', f));
      expect((await readFile(join(tmp.dir, 'rebuilt-a', f))).equals(live), `${f} differs after rebuild`).to.equal(true);
    }
  });

  it('refuses repetitions that differ from the frozen cells, naming the cell field, and writes nothing', async () => {
    const r = await runEvalogHere(['run', 'context-engineering', '--out', 'runs/b', '--repetitions', '2'], { cwd: tmp.dir });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/field cells\.baseline\.repetitions/);
    expect(await listFiles(join(tmp.dir, 'runs'))).to.not.include.members(['b/run.json']);
  });

  it('on the JetStream log too: the restarted worker reads its events back from NATS, and the rows match the embedded run', async () => {
    const nats = await startNatsServer();
    try {
      const r = await runEvalogHere(['run', 'context-engineering', '--out', 'runs/onnats', '--nats', nats.url], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(0);
      const rows = (await readJsonl(join(tmp.dir, 'runs/onnats/rows.jsonl'))).map(withoutWallClock);
      const embedded = (await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'))).map(withoutWallClock);
      const noWall = (row: Record<string, unknown>) => ({ ...row, wall_seconds: null });
      expect(rows.map(noWall)).to.deep.equal(embedded.map(noWall));
      const replay = await runEvalogHere(['replay', 'onnats', '--nats', nats.url], { cwd: tmp.dir });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    } finally {
      await nats.stop();
    }
  });

  it('runs one scenario alone with --case', async () => {
    const r = await runEvalogHere(['run', 'context-engineering', '--out', 'runs/c', '--case', 'recovery_worker_restart'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .filter((l) => /recovery_worker_restart/.test(l)),
    ).to.have.length(2);
  });
});

import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mcnemarExactP } from '../../src/stats/index.js';
import { sourcesHash } from '../../src/harness/orchestration/provenance.js';
import { listFiles, readJsonl, runEvalog, runEvalogHere, tempDir, withoutWallClock } from '../support/cli.js';
import { PROJECT } from '../support/compile.js';

const FILES = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json'];

describe('evalog run smoke (CLI, child processes)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  /** What the first run printed: its table. */
  let firstStdout = '';
  before(async () => {
    tmp = await tempDir();
  });
  after(() => tmp.cleanup());

  it('completes on the scripted model, prints the table, writes the four files and the log; a second run into the folder is refused', async () => {
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/a'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    firstStdout = r.stdout;
    expect(r.stderr).to.match(/scripted model/);
    expect(r.stdout)
      .to.match(/brief_handoff\s+8/)
      .and.match(/full_handoff\s+8/);
    const files = await listFiles(join(tmp.dir, 'runs/a'));
    for (const f of [...FILES, '.gitignore', 'log/events.evlog']) expect(files).to.include(f);
    const rows = await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'));
    expect(rows).to.have.length(16);
    expect(rows.every((row) => row.status === 'succeeded')).to.equal(true);
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/a/run.json'), 'utf8'));
    expect(run.model.scripted).to.equal(true);
    expect(run.job_order).to.have.length(16);
    // The compiled tree records its sources' hash as a build does (test/support/compile.ts).
    expect(run.provenance.source_sha256).to.equal(sourcesHash(PROJECT));

    const before = await Promise.all(FILES.map((f) => readFile(join(tmp.dir, 'runs/a', f))));
    const again = await runEvalog(['run', 'smoke', '--out', 'runs/a'], { cwd: tmp.dir });
    expect(again.code).to.equal(2);
    expect(again.stderr).to.match(/exists already/);
    const after = await Promise.all(FILES.map((f) => readFile(join(tmp.dir, 'runs/a', f))));
    expect(after).to.deep.equal(before);
  });

  it('the two arms are compared paired: one pair per case and repetition, the counts of the rows, printed under the table', async () => {
    const summary = JSON.parse(await readFile(join(tmp.dir, 'runs/a/summary.json'), 'utf8'));
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/a/run.json'), 'utf8'));
    const rows = await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'));
    const cases = new Set(rows.map((row) => row.case_id));
    expect(summary.paired).to.have.length(1);
    const [p] = summary.paired;
    expect(p).to.include({ a: 'brief_handoff', b: 'full_handoff', n: cases.size * run.config.repetitions });
    expect(p.unpaired.total).to.equal(0);
    expect(p.n).to.equal(8);
    const passed = new Map(rows.map((row) => [`${row.arm}/${row.case_id}/${row.repetition}`, row.passed]));
    const table = { both: 0, a_only: 0, b_only: 0, neither: 0 };
    for (const c of cases) {
      for (let rep = 1; rep <= run.config.repetitions; rep++) {
        const a = passed.get(`brief_handoff/${c}/${rep}`);
        const b = passed.get(`full_handoff/${c}/${rep}`);
        table[a && b ? 'both' : a ? 'a_only' : b ? 'b_only' : 'neither'] += 1;
      }
    }
    expect(p).to.include(table);
    expect(p.mcnemar_p).to.equal(mcnemarExactP(table.a_only, table.b_only));
    expect(p.bootstrap.difference).to.equal(summary.arms.full_handoff.pass_rate - summary.arms.brief_handoff.pass_rate);
    expect(p.bootstrap).to.include({ seed: 4789, iterations: 10000, alpha: 0.05 });
    const pts = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x * 100).toFixed(1)}`;
    expect(firstStdout).to.include(
      `paired brief_handoff vs full_handoff: 8 pairs, brief_handoff only ${table.a_only}, full_handoff only ${table.b_only}, p=${p.mcnemar_p.toFixed(3)}, ` +
        `difference ${pts(p.bootstrap.difference)} points, 95% CI [${pts(p.bootstrap.lower)}, ${pts(p.bootstrap.upper)}]\n`,
    );
  });

  it('rebuild writes files byte-identical to the live run', async () => {
    const r = await runEvalogHere(['rebuild', 'runs/a', '--out', 'rebuilt-a'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    for (const f of FILES) {
      const live = await readFile(join(tmp.dir, 'runs/a', f));
      const rebuilt = await readFile(join(tmp.dir, 'rebuilt-a', f));
      expect(rebuilt.equals(live), `${f} differs after rebuild`).to.equal(true);
    }
  });

  it('two runs with the same seeds give identical rows apart from wall-clock fields', async () => {
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/b', '--concurrency', '3'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const a = (await readJsonl(join(tmp.dir, 'runs/a/rows.jsonl'))).map(withoutWallClock);
    const b = (await readJsonl(join(tmp.dir, 'runs/b/rows.jsonl'))).map(withoutWallClock);
    expect(b).to.deep.equal(a);
    const usageA = await readFile(join(tmp.dir, 'runs/a/usage.json'), 'utf8');
    const usageB = await readFile(join(tmp.dir, 'runs/b/usage.json'), 'utf8');
    const noLatency = (s: string) =>
      JSON.stringify({ ...JSON.parse(s), calls: JSON.parse(s).calls.map((c: Record<string, unknown>) => ({ ...c, latency_ms: null })) });
    expect(noLatency(usageB)).to.equal(noLatency(usageA));
  });

  it('a different seed changes the plan', async () => {
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/c', '--seed', '99', '--case', 'hardware_run', '--repetitions', '1'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const rows = await readJsonl(join(tmp.dir, 'runs/c/rows.jsonl'));
    expect(rows.map((x) => x.job_id)).to.deep.equal(['hardware_run:brief_handoff:1', 'hardware_run:full_handoff:1']);
    expect(rows.every((x) => x.seed === 99)).to.equal(true); // the first repetition's seed is the run seed
  });

  it('lists runs with their status', async () => {
    const r = await runEvalogHere(['runs', '--dir', 'runs', '--json'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const runs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(runs.map((x: { runId: string }) => x.runId)).to.deep.equal(['a', 'b', 'c']);
    expect(runs.every((x: { status: string }) => x.status === 'completed')).to.equal(true);
  });
});

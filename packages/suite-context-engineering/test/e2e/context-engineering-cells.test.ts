import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listFiles, runEvalogHere, tempDir } from '../../../../test/support/cli.js';

// Runs of the CLI (in this process through runCli, the built-in scripted model, which answers whatever model a
// request names) with cells of the user's own: what run.json says was called, and what each
// repetition of a cell leaves behind.
const MANIFEST = new URL('../../manifests/cells.v1.json', import.meta.url);
const CASES = ['--case', 'stale_evidence', '--case', 'query_failure'];

type Cells = Record<string, Record<string, unknown> & { provider: { name: string; model: string } }>;

async function configFile(dir: string, name: string, edit: (cells: Cells) => void, repetitions = 1): Promise<string> {
  const m = JSON.parse(await readFile(MANIFEST, 'utf8')) as { cells: Cells; repetitions: number };
  for (const c of Object.values(m.cells)) c.repetitions = repetitions;
  m.repetitions = repetitions;
  edit(m.cells);
  const path = join(dir, name);
  await writeFile(path, JSON.stringify(m));
  return path;
}

const json = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

describe('evalog run context-engineering with its own cells (CLI in process, scripted model)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(() => tmp.cleanup());

  it("run.json's model is the model the cells' requests sent, not the endpoint's default", async () => {
    const config = await configFile(tmp.dir, 'one-model.json', (cells) => {
      for (const c of Object.values(cells)) c.provider.model = 'ce-frozen-model';
    });
    const r = await runEvalogHere(['run', 'context-engineering', '--config', config, '--out', 'runs/one', ...CASES], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const run = await json(join(tmp.dir, 'runs/one/run.json'));
    const usage = await json(join(tmp.dir, 'runs/one/usage.json'));
    const sent = new Set((usage.calls as { model: string }[]).map((c) => c.model));
    expect([...sent]).to.deep.equal(['ce-frozen-model']);
    expect(run.model).to.deep.equal({ name: 'ce-frozen-model', scripted: true, baseUrlEnv: null, apiKeyEnv: null });
    expect((await json(join(tmp.dir, 'runs/one/summary.json'))).model).to.equal('ce-frozen-model');
  });

  it('cells of different models: run.json names the model of each cell, as its requests sent it', async () => {
    const config = await configFile(tmp.dir, 'two-models.json', (cells) => {
      cells.baseline!.provider.model = 'model-a';
      cells.candidate!.provider.model = 'model-b';
    });
    const r = await runEvalogHere(['run', 'context-engineering', '--config', config, '--out', 'runs/two', ...CASES], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const run = await json(join(tmp.dir, 'runs/two/run.json'));
    expect(run.model.arms).to.deep.equal({ baseline: 'model-a', candidate: 'model-b' });
    const usage = await json(join(tmp.dir, 'runs/two/usage.json'));
    for (const c of usage.calls as { job_id: string; model: string }[]) expect(c.model, c.job_id).to.equal(run.model.arms[c.job_id.split(':')[1]!]);
  });

  it('two repetitions: a usage report per cell and repetition, the roll-up over them in summary.json, and rebuild writes the same bytes', async () => {
    const config = await configFile(tmp.dir, 'two-reps.json', () => {}, 2);
    const r = await runEvalogHere(['run', 'context-engineering', '--config', config, '--repetitions', '2', '--out', 'runs/reps', ...CASES], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^per cell across repetitions:$/m);
    expect(r.stdout).to.match(/^candidate\s+2\s+4\s+4\/4\s/m);
    const dir = join(tmp.dir, 'runs/reps');
    const reps = ['usage.baseline.rep-1.json', 'usage.baseline.rep-2.json', 'usage.candidate.rep-1.json', 'usage.candidate.rep-2.json'];
    expect(await listFiles(dir)).to.include.members(reps);
    const usage = await json(join(dir, 'usage.json'));
    const summary = await json(join(dir, 'summary.json'));
    let calls = 0;
    for (const name of reps) {
      const rep = await json(join(dir, name));
      const [, cell, n] = /^usage\.(\w+)\.rep-(\d)\.json$/.exec(name)!;
      expect(rep).to.deep.include({ cell, repetition: Number(n) });
      expect(rep.jobs).to.deep.equal([`query_failure:${cell}:${n}`, `stale_evidence:${cell}:${n}`]);
      // The report of exactly the calls usage.json lists for those jobs.
      const mine = (usage.calls as { job_id: string }[]).filter((c) => rep.jobs.includes(c.job_id));
      expect(rep.report.calls).to.equal(mine.length).and.to.be.greaterThan(0);
      calls += rep.report.calls;
    }
    expect(calls).to.equal(usage.report.calls);
    const candidate = summary.rollup.candidate;
    expect(candidate).to.deep.include({ repetitions: 2, jobs: 4 });
    expect(candidate.success).to.deep.equal({ successes: 4, jobs: 4, rate: 1 });
    const perRep = await Promise.all(
      ['usage.candidate.rep-1.json', 'usage.candidate.rep-2.json'].map(async (f) => (await json(join(dir, f))).report.usage.fields.totalTokens.sum),
    );
    expect(candidate.known_tokens.total_tokens.per_repetition).to.deep.include({ n: 2, min: Math.min(...perRep), max: Math.max(...perRep) });
    expect(candidate.unknown_usage.ratio).to.equal(0);
    expect(candidate.latency_ms.n).to.equal(candidate.calls.total);

    const rebuilt = await runEvalogHere(['rebuild', 'runs/reps', '--out', 'rebuilt-reps'], { cwd: tmp.dir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json', 'run.json', ...reps]) {
      const live = await readFile(join(dir, f));
      expect((await readFile(join(tmp.dir, 'rebuilt-reps', f))).equals(live), `${f} differs after rebuild`).to.equal(true);
    }
  });
});

// The shipped example, examples/suite-quickstart/, end to end in real processes, run as its README
// says: from the repository's root, offline on the scripted model with the player it exports. Its
// outputs go to a temp folder; where a test edits the suite it edits a copy, never examples/.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { appendFile, cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CliResult, readJsonl, runEvalog, tempDir } from '../support/cli.js';

/** What the tests read of a row, of run.json and of usage.json. */
interface Row {
  arm: string;
  status: string;
  passed: boolean;
  checks: Record<string, boolean>;
  checks_total: number;
}
interface UsageReport {
  calls: number;
  outcomes: { success: number };
  usage: { fields: { totalTokens: { sum: number | null } } };
}
interface Usage {
  calls: { attribution: string; call_id: string }[];
  grading: UsageReport;
  report: UsageReport & { byAttribution: Record<string, UsageReport> };
}
interface RunJson {
  suite: string;
  provenance: Record<string, unknown>;
}
// From the root, as a user of this repository runs it (tsconfig `paths` then map 'evalog' to src/api).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FOLDER = 'examples/suite-quickstart';
const FILE = `${FOLDER}/suite.ts`;
// No real endpoint leaks in from the environment: the scripted model must play.
const OFFLINE = { EVALOG_BASE_URL: undefined, EVALOG_MODEL: undefined, EVALOG_API_KEY: undefined };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** sha256 of every file of the example folder, to prove the tests leave it as it was. */
async function folderHashes(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(join(ROOT, FOLDER))).sort()) out[name] = sha256(await readFile(join(ROOT, FOLDER, name)));
  return out;
}

describe('examples/suite-quickstart', function () {
  this.timeout(180_000);
  let tmp: { dir: string; cleanup: () => Promise<void> };
  let before_: Record<string, string>;
  let first: CliResult;
  const out = (...p: string[]) => join(tmp.dir, 'runs/first', ...p);
  const json = async <T>(name: string) => JSON.parse(await readFile(out(name), 'utf8')) as T;

  before(async () => {
    tmp = await tempDir('evalog-quickstart-');
    before_ = await folderHashes();
    first = await runEvalog(['run', FILE, '--out', out()], { cwd: ROOT, env: OFFLINE });
  });
  after(() => tmp?.cleanup());

  it('runs offline on the scripted model and writes the four files', async () => {
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.include('scripted model plays');
    expect(first.stdout).to.include('wrote rows.jsonl, summary.json, usage.json, run.json');
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json', 'run.json']) await readFile(out(f));
    const rows = await readJsonl<Row>(out('rows.jsonl'));
    // 4 cases × 2 arms, every job finished and graded by both checks.
    expect(rows).to.have.length(8);
    expect(
      rows.every((r) => r.status === 'succeeded' && r.checks_total === 2),
      JSON.stringify(rows),
    ).to.equal(true);
  });

  it('tells the two arms apart: both get the number right, only the explicit prompt satisfies the judge', async () => {
    const rows = await readJsonl<Row>(out('rows.jsonl'));
    const of = (arm: string) => rows.filter((r) => r.arm === arm);
    expect(of('explicit')).to.have.length(4);
    expect(of('terse')).to.have.length(4);
    expect(
      rows.every((r) => r.checks.value === true),
      JSON.stringify(rows),
    ).to.equal(true);
    expect(of('explicit').every((r) => r.checks.model === true && r.passed === true)).to.equal(true);
    expect(of('terse').every((r) => r.checks.model === false && r.passed === false)).to.equal(true);
    // What the worker saved with the tool: the unit only when the prompt asked for it.
    expect(await readFile(out('artifacts/trail-miles/explicit.1/artifact.txt'), 'utf8')).to.equal('8.05 km');
    expect(await readFile(out('artifacts/trail-miles/terse.1/artifact.txt'), 'utf8')).to.equal('8.05');
  });

  it("records the suite file's relative path and sha256 in run.json", async () => {
    const run = await json<RunJson>('run.json');
    expect(run.suite).to.equal('unit-conversion');
    expect(run.provenance.suite_file).to.deep.equal({ path: FILE, sha256: sha256(await readFile(join(ROOT, FILE))), report: false });
  });

  it("counts the judge's calls in usage.json's grading report, apart from the agents' main and child usage", async () => {
    const usage = await json<Usage>('usage.json');
    // One judge call per job.
    expect(usage.grading.calls).to.equal(8);
    expect(usage.grading.outcomes.success).to.equal(8);
    expect(usage.grading.usage.fields.totalTokens.sum).to.be.a('number').above(0);
    const calls = usage.calls;
    const grading = calls.filter((c) => c.attribution === 'grading');
    expect(grading).to.have.length(8);
    expect(grading.every((c) => String(c.call_id).startsWith('judge-'))).to.equal(true);
    // The agents' report: parent (main) and worker (child) calls only, 3 per job; no judge call folded in.
    const by = usage.report.byAttribution;
    expect(by).not.to.have.property('grading');
    expect(by.main?.calls).to.equal(8);
    expect(by.child?.calls).to.equal(16);
    expect((by.query?.calls ?? 0) + (by.unknown?.calls ?? 0)).to.equal(0);
    expect(usage.report.calls).to.equal(24);
  });

  it('replays with every event matching', async () => {
    const r = await runEvalog(['replay', out()], { cwd: ROOT, env: OFFLINE });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/every event matches \(8 jobs\)/);
  });

  it('refuses resume of a copy whose suite file was edited: exit 2, one line naming the file', async () => {
    // The run itself resumes where its suite file is unchanged (the refusal below is the edit's).
    await cp(out(), join(tmp.dir, 'runs/control'), { recursive: true });
    const control = await runEvalog(['resume', join(tmp.dir, 'runs/control')], { cwd: ROOT, env: OFFLINE });
    expect(control.code, control.stderr).to.equal(0);

    // A copy of the example and of the run, in a folder of their own; the copy's suite is edited.
    const copy = join(tmp.dir, 'copy');
    await cp(join(ROOT, FOLDER), join(copy, FOLDER), { recursive: true });
    await cp(out(), join(copy, 'runs/first'), { recursive: true });
    await appendFile(join(copy, FILE), '// edited after the run\n');
    const r = await runEvalog(['resume', 'runs/first'], { cwd: copy, env: OFFLINE });
    expect(r.code, r.stderr).to.equal(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).to.have.length(1);
    expect(lines[0])
      .to.include(FILE)
      .and.match(/changed since the run started/);
    expect(r.stderr).not.to.match(/^\s+at /m);
  });

  it('leaves examples/ as it was', async () => {
    expect(await folderHashes()).to.deep.equal(before_);
  });
});

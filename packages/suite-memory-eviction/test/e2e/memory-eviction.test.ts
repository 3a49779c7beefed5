import { createHash } from 'node:crypto';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { FileEventLog } from 'evalog';
import { collect, listFiles, readJsonl, runEvalogHere, startEvalog, tempDir } from '../../../../test/support/cli.js';
import { MANIFEST_DIR_PATH, makeTestSetup } from '../../../../test/support/longmemeval.js';
import { type MockServerProcess, startMockServer } from '../../../../test/support/mock-server.js';

async function successes(root: string, runId: string): Promise<number> {
  const log = await FileEventLog.open({ root });
  let n = 0;
  for await (const e of log.read(runId)) if (e.type === 'ProviderCallSucceeded') n += 1;
  await log.close();
  return n;
}

describe('evalog memory-eviction on a synthetic LongMemEval-shaped dataset (CLI in process; killed runs in child processes)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let setup: ReturnType<typeof makeTestSetup>;
  let server: MockServerProcess;
  let protocolDir: string;
  let data: string[];

  before(async () => {
    tmp = await tempDir();
    setup = makeTestSetup();
    server = await startMockServer(['--latency-ms', '20-60'], tmp.dir);
    // A private copy of the protocol folder, so the test can change its prompt.
    protocolDir = join(tmp.dir, 'protocol');
    await cp(MANIFEST_DIR_PATH, protocolDir, { recursive: true });
    await cp(setup.config.path, join(protocolDir, 'config.v1.json'));
    data = ['--protocol', protocolDir, '--dataset', setup.dataset.path];
  });
  after(async () => {
    await server?.stop();
    setup?.cleanup();
    await tmp?.cleanup();
  });

  it('validate-contracts needs no dataset; validate with a file of the wrong hash fails before any work, naming both hashes', async () => {
    const c = await runEvalogHere(['memory-eviction', 'validate-contracts'], { cwd: tmp.dir });
    // The bundled files are evalog's own offline variant, and say so.
    const lines = c.stdout.split('\n');
    expect(lines[0]).to.equal('validated 40 official and 5 synthetic cases');
    // The bundled folder is named by its place in the package, never by this machine's install path.
    expect(lines[1]).to.equal('protocol evalog-deermem-offline-v1: evalog offline variant from evalog:manifests/memory-eviction');
    expect(lines[5]).to.match(/^answer_prompt_sha256 +[0-9a-f]{64} {2}prompts\/answer-v1\.txt$/);
    const wrong = join(tmp.dir, 'wrong.json');
    await writeFile(wrong, '[]');
    const bad = await runEvalogHere(['memory-eviction', 'validate', '--protocol', protocolDir, '--dataset', wrong], { cwd: tmp.dir });
    expect(bad.code).to.equal(2);
    const actual = createHash('sha256').update('[]').digest('hex');
    expect(bad.stderr)
      .to.include(setup.dataset.sha256)
      .and.include(actual)
      .and.match(/SHA-256 mismatch/i);
    const ok = await runEvalogHere(['memory-eviction', 'validate', ...data], { cwd: tmp.dir });
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.match(/built 45 cases/);
  });

  it('run-policy writes the deterministic files: the same bytes twice', async () => {
    for (const out of ['policy-a', 'policy-b']) {
      const r = await runEvalogHere(['memory-eviction', 'run-policy', ...data, '--out', out], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(0);
    }
    for (const f of ['policy.raw.jsonl', 'summary.json']) {
      expect(await readFile(join(tmp.dir, 'policy-b', f), 'utf8'), f).to.equal(await readFile(join(tmp.dir, 'policy-a', f), 'utf8'));
    }
    expect(await readJsonl(join(tmp.dir, 'policy-a/policy.raw.jsonl'))).to.have.length(270);
  });

  it('run-qa killed midway and rerun completes without repeating a completed call; grade-qa writes the three files', async () => {
    const env = { DEERMEM_EVAL_ANSWER_BASE_URL: server.url, DEERMEM_EVAL_ANSWER_API_KEY: 'sk-test-SECRET' };
    const child = startEvalog(['memory-eviction', 'run-qa', ...data, '--out', 'runs/qa', '--verbose'], { cwd: tmp.dir, env });
    let done = 0;
    child.stderr!.on('data', (d: Buffer) => {
      done += (d.toString().match(/^job /gm) ?? []).length;
      if (done >= 40 && child.exitCode === null) child.kill('SIGKILL');
    });
    expect((await collect(child)).signal).to.equal('SIGKILL');
    const before = (await server.stats()).completed;
    const logged = await successes(join(tmp.dir, 'runs'), 'qa');
    const missing = await runEvalogHere(['memory-eviction', 'grade-qa', 'runs/qa', ...data], { cwd: tmp.dir });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/not answered yet/);

    const again = await runEvalogHere(['memory-eviction', 'run-qa', ...data, '--out', 'runs/qa'], { cwd: tmp.dir, env });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stderr).to.match(/resuming/);
    expect((await server.stats()).completed - before).to.equal((await successes(join(tmp.dir, 'runs'), 'qa')) - logged);
    expect(await successes(join(tmp.dir, 'runs'), 'qa')).to.equal(90);

    const g = await runEvalogHere(['memory-eviction', 'grade-qa', 'runs/qa', ...data], { cwd: tmp.dir });
    expect(g.code, g.stderr).to.equal(0);
    const rows = await readJsonl<Record<string, unknown>>(join(tmp.dir, 'runs/qa/qa.rows.jsonl'));
    expect(rows).to.have.length(90);
    expect(Object.keys(rows[0]!).sort()).to.deep.equal([
      'attempts',
      'capacity',
      'case_id',
      'grade_correct',
      'grade_rule',
      'grader_version',
      'kept_fact_ids',
      'policy',
      'prediction',
      'question_type',
      'request_fingerprint',
      'response_model',
      'row_id',
      'scenario',
      'schema_version',
      'source',
      'support_all_retained',
      'support_recall',
      'usage',
    ]);
    const stats = JSON.parse(await readFile(join(tmp.dir, 'runs/qa/qa.stats.json'), 'utf8'));
    expect(Object.keys(stats.suites)).to.deep.equal(['official', 'overall', 'synthetic']);
    const twice = await runEvalogHere(['memory-eviction', 'grade-qa', 'runs/qa', ...data], { cwd: tmp.dir });
    expect(twice.code).to.equal(2);
    expect(twice.stderr).to.match(/never overwrites/);

    // Nothing of questions, reference answers, fact content or credentials in the published files.
    const published = ['qa.rows.jsonl', 'qa.summary.json', 'qa.stats.json', 'rows.jsonl', 'summary.json', 'usage.json', 'run.json'];
    const texts = await Promise.all(published.map((f) => readFile(join(tmp.dir, 'runs/qa', f), 'utf8')));
    for (const [i, t] of texts.entries()) {
      expect(t, published[i]).to.not.include('What is the answer to question').and.not.include('sk-test-SECRET').and.not.include(new URL(server.url).host);
      expect(t, published[i]).to.not.include('Correction from the user');
    }
    expect(await listFiles(join(tmp.dir, 'runs/qa'))).to.include('.gitignore');
  });

  it('a changed prompt file makes run-qa refuse to resume, naming what changed', async () => {
    const env = { DEERMEM_EVAL_ANSWER_BASE_URL: server.url, DEERMEM_EVAL_ANSWER_API_KEY: 'k' };
    const child = startEvalog(['memory-eviction', 'run-qa', ...data, '--out', 'runs/qa2', '--verbose'], { cwd: tmp.dir, env });
    child.stderr!.on('data', (d: Buffer) => {
      if (/^job /m.test(d.toString()) && child.exitCode === null) child.kill('SIGKILL');
    });
    await collect(child);
    const promptPath = join(protocolDir, 'prompts/answer-v1.txt');
    const prompt = `${await readFile(promptPath, 'utf8')}Be brief.\n`;
    await writeFile(promptPath, prompt);
    const config = JSON.parse(await readFile(join(protocolDir, 'config.v1.json'), 'utf8'));
    config.qa.answer_prompt.sha256 = createHash('sha256').update(prompt).digest('hex');
    await writeFile(join(protocolDir, 'config.v1.json'), `${JSON.stringify(config, null, 2)}\n`);
    const r = await runEvalogHere(['memory-eviction', 'run-qa', ...data, '--out', 'runs/qa2'], { cwd: tmp.dir, env });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/refusing to resume.*answer_prompt_sha256/);
  });
});

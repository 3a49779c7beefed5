import { expect } from 'chai';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { collect, readJsonl, runEvalog, runEvalogHere, startEvalog, tempDir } from '../support/cli.js';
import { startChatEndpoint, type ChatEndpoint } from '../support/chat-endpoint.js';

const CASES = [
  { id: 'france', input: 'What is the capital of France?', expected: 'Paris' },
  { id: 'japan', input: 'What is the capital of Japan?', expected: 'Tokyo' },
];
const REFUSED = { id: 'refused', input: 'REFUSE this one', expected: 'x' };

interface UsageJson {
  report: { calls: number; outcomes: Record<string, number>; usage: { fields: { inputTokens: { sum: number | null } } } };
  cached?: { calls: number; usage: { fields: { inputTokens: { sum: number | null } } } };
  calls: { job_id: string; outcome: string }[];
}
const usageOf = async (dir: string): Promise<UsageJson> => JSON.parse(await readFile(join(dir, 'usage.json'), 'utf8'));
const verdicts = async (dir: string) => (await readJsonl<{ job_id: string; passed: boolean | null }>(join(dir, 'rows.jsonl'))).map((r) => [r.job_id, r.passed]);

async function entries(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const sub of (await readdir(dir)).sort()) {
    if (sub === '.gitignore') continue;
    for (const f of (await readdir(join(dir, sub))).sort()) out.push(join(dir, sub, f));
  }
  return out;
}

describe('evalog run --cache (a real HTTP endpoint; CLI in process and in child processes)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let endpoint: ChatEndpoint;
  let env: Record<string, string | undefined>;
  const run = (out: string, ...more: string[]) =>
    runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-1', '--repetitions', '2', '--out', out, ...more], { cwd: tmp.dir, env });

  before(async () => {
    tmp = await tempDir();
    await writeFile(join(tmp.dir, 'qa.jsonl'), CASES.map((c) => JSON.stringify(c)).join('\n'));
    await writeFile(join(tmp.dir, 'refusing.jsonl'), [...CASES, REFUSED].map((c) => JSON.stringify(c)).join('\n'));
    endpoint = await startChatEndpoint((p) => (p.includes('REFUSE') ? 400 : p.includes('France') ? 'Paris' : 'The capital is Tokyo.'));
    env = { EVALOG_BASE_URL: endpoint.url, EVALOG_API_KEY: 'sk-test-secret-1234', EVALOG_CACHE_DIR: undefined };
  });
  after(async () => {
    await endpoint.close();
    await tmp.cleanup();
  });

  it('a second run with the same cache calls nothing, its usage.json counts every call as cached, and replay matches', async () => {
    const first = await run('runs/first', '--cache=cache');
    expect(first.code, first.stderr).to.equal(0);
    expect(endpoint.calls, 'two cases × two repetitions').to.equal(4);
    expect(await entries(join(tmp.dir, 'cache')), 'one entry per repetition: the job seed is in the key').to.have.length(4);
    expect(await readFile(join(tmp.dir, 'cache/.gitignore'), 'utf8')).to.equal('*\n');
    const spent = await usageOf(join(tmp.dir, 'runs/first'));
    expect(spent.report.calls).to.equal(4);
    expect(spent.cached).to.equal(undefined);

    const before = endpoint.calls;
    const second = await run('runs/second', '--cache=cache');
    expect(second.code, second.stderr).to.equal(0);
    expect(endpoint.calls - before, 'no call reached the endpoint').to.equal(0);
    const usage = await usageOf(join(tmp.dir, 'runs/second'));
    expect(usage.calls.map((c) => c.outcome)).to.deep.equal(['cached', 'cached', 'cached', 'cached']);
    expect(usage.report.calls, 'nothing spent').to.equal(0);
    expect(usage.report.usage.fields.inputTokens.sum).to.equal(null);
    expect(usage.cached?.calls).to.equal(4);
    expect(usage.cached?.usage.fields.inputTokens.sum).to.equal(44);
    expect(await verdicts(join(tmp.dir, 'runs/second'))).to.deep.equal(await verdicts(join(tmp.dir, 'runs/first')));
    const runJson = JSON.parse(await readFile(join(tmp.dir, 'runs/second/run.json'), 'utf8'));
    expect(runJson.provenance.cache).to.deep.equal({ dir: 'cache' });
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/first/run.json'), 'utf8')).provenance.cache).to.deep.equal({ dir: 'cache' });

    // The cache holds request hashes and responses: never the key.
    for (const f of await entries(join(tmp.dir, 'cache'))) expect(await readFile(f, 'utf8')).not.to.include('sk-test-secret');

    const replay = await runEvalogHere(['replay', 'runs/second'], { cwd: tmp.dir, env: { ...env, EVALOG_BASE_URL: undefined } });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(endpoint.calls - before).to.equal(0);

    // Off by default: a run without the flag calls the endpoint and records no cache.
    const plain = await run('runs/plain');
    expect(plain.code, plain.stderr).to.equal(0);
    expect(endpoint.calls - before).to.equal(4);
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/plain/run.json'), 'utf8')).provenance.cache).to.equal(undefined);
  });

  it('a damaged entry is a miss with one warning and a real call, and is written again', async () => {
    const [victim] = await entries(join(tmp.dir, 'cache'));
    const entry = JSON.parse(await readFile(victim!, 'utf8'));
    entry.response.content = 'Lyon'; // a wrong answer that still parses: the entry's own hash catches it
    await writeFile(victim!, JSON.stringify(entry));
    const before = endpoint.calls;
    const r = await run('runs/damaged', '--cache=cache');
    expect(r.code, r.stderr).to.equal(0);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    expect(warnings, r.stderr).to.have.length(1);
    expect(warnings[0]).to.include(victim!).and.include('sha256 does not match');
    expect(endpoint.calls - before).to.equal(1);
    const usage = await usageOf(join(tmp.dir, 'runs/damaged'));
    expect(usage.report.calls).to.equal(1);
    expect(usage.cached?.calls).to.equal(3);
    expect(await verdicts(join(tmp.dir, 'runs/damaged'))).to.deep.equal(await verdicts(join(tmp.dir, 'runs/first')));

    await writeFile(victim!, 'not json at all');
    const torn = await run('runs/torn', '--cache=cache');
    expect(torn.stderr).to.include('is damaged (not JSON)');
    const again = await run('runs/again', '--cache=cache');
    expect(again.stderr).not.to.include('warning');
    expect(endpoint.calls - before, 'the torn entry was replaced by the real answer').to.equal(2);
  });

  it('a failed call is never cached (EVALOG_CACHE_DIR turns the cache on too)', async () => {
    const before = endpoint.calls;
    const args = (out: string) => ['run', 'dataset', '--data', 'refusing.jsonl', '--model', 'm-1', '--out', out];
    const withEnv = { ...env, EVALOG_CACHE_DIR: 'cache2' };
    const first = await runEvalog(args('runs/refusing-1'), { cwd: tmp.dir, env: withEnv });
    expect(endpoint.calls - before, 'a 400 is not retried').to.equal(3);
    expect(await entries(join(tmp.dir, 'cache2'))).to.have.length(2);
    const second = await runEvalog(args('runs/refusing-2'), { cwd: tmp.dir, env: withEnv });
    expect(endpoint.calls - before, 'only the refused request is sent again').to.equal(4);
    const usage = await usageOf(join(tmp.dir, 'runs/refusing-2'));
    expect(usage.report.outcomes.failure).to.equal(1);
    expect(usage.cached?.calls).to.equal(2);
    expect(JSON.parse(await readFile(join(tmp.dir, 'runs/refusing-2/run.json'), 'utf8')).provenance.cache).to.deep.equal({ dir: 'cache2' });
    expect([first.code, second.code]).to.not.include(2);
    // --no-cache wins over the variable.
    const off = await runEvalog([...args('runs/refusing-3'), '--no-cache'], { cwd: tmp.dir, env: withEnv });
    expect(off.code).to.not.equal(2);
    expect(endpoint.calls - before).to.equal(7);
  });

  it('resume of a run started with --cache uses the cache the run recorded', async () => {
    const slow = await startChatEndpoint(() => 'Paris', { delayMs: 150 });
    try {
      const many = Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, input: `Question ${i}?`, expected: 'Paris' }));
      await writeFile(join(tmp.dir, 'many.jsonl'), many.map((c) => JSON.stringify(c)).join('\n'));
      const slowEnv = { ...env, EVALOG_BASE_URL: slow.url };
      const args = (out: string) => ['run', 'dataset', '--data', 'many.jsonl', '--model', 'm-1', '--concurrency', '1', '--out', out, '--cache=cache3'];
      const child = startEvalog(args('runs/killed'), { cwd: tmp.dir, env: slowEnv });
      const poll = setInterval(() => {
        if (slow.calls >= 3 && child.exitCode === null) child.kill('SIGKILL');
      }, 20);
      const killed = await collect(child).finally(() => clearInterval(poll));
      expect(killed.signal, 'killed mid-run').to.equal('SIGKILL');
      const resumed = await runEvalogHere(['resume', 'runs/killed', '--model', 'm-1'], { cwd: tmp.dir, env: slowEnv });
      expect(resumed.code, resumed.stderr).to.equal(0);
      expect(await entries(join(tmp.dir, 'cache3')), 'the jobs resume ran stored their answers too').to.have.length(8);
      const before = slow.calls;
      const again = await runEvalog(args('runs/after-resume'), { cwd: tmp.dir, env: slowEnv });
      expect(again.code, again.stderr).to.equal(0);
      expect(slow.calls - before).to.equal(0);
    } finally {
      await slow.close();
    }
  });

  it('--cache=DIR naming a file is bad input before anything is written', async () => {
    const r = await run('runs/bad-cache', '--cache=qa.jsonl');
    expect(r.code).to.equal(2);
    expect(r.stderr.trim()).to.equal('evalog run: --cache: qa.jsonl is not a folder');
    expect(await readdir(join(tmp.dir, 'runs'))).not.to.include('bad-cache');
  });
});

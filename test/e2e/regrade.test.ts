import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { loadRecording } from '../../src/harness/orchestration/recording.js';
import { sourceCaller, SourceMismatchError } from '../../src/harness/orchestration/regrade/index.js';
import { apiUrl, readJsonl, runEvalog, runEvalogHere, tempDir } from '../support/cli.js';
import { startChatEndpoint, type ChatEndpoint } from '../support/chat-endpoint.js';
import { startMockServer } from '../support/mock-server.js';

const CASES = [
  { id: 'france', input: 'What is the capital of France?', expected: 'Paris' },
  { id: 'japan', input: 'What is the capital of Japan?', expected: 'Tokyo' },
  { id: 'peru', input: 'What is the capital of Peru?', expected: 'Lima' },
];

const API = apiUrl();
const ZOD = import.meta.resolve('zod');
/** A one-call suite file whose prompt is PROMPT (imports by URL: the temp folder has no node_modules). */
const suiteFile = (prompt: string) => `import { z } from ${JSON.stringify(ZOD)};
import { baseConfigShape, defineSuite } from ${JSON.stringify(API)};
export default defineSuite({
  name: 'capitals',
  description: 'one call per case',
  shape: 'single-call',
  configSchema: z.object({ ...baseConfigShape }).strict(),
  defaults: {
    repetitions: 1, concurrency: 2, seed: 1, orderSeed: 1, cases: null, model: { temperature: 0, maxTokens: 64 },
    worker: { turnCap: 1, timeLimitMs: 60_000 }, provider: { timeoutMs: 10_000, maxAttempts: 1, backoffMs: 0, maxBackoffMs: 0 },
  },
  prepare: async () => ({ cases: [{ id: 'fr', data: 'France' }, { id: 'jp', data: 'Japan' }] }),
  arms: () => ['default'],
  call: { request: (c) => ({ messages: [{ role: 'user', content: ${JSON.stringify(prompt)} + c.data + '?' }], tools: [] }) },
  grade: (c, work) => ({ checks: [{ checkId: 'named', visibility: 'hidden', passed: (work.answer ?? '').length > 0, detail: null }], firstRevisionPassed: null }),
});
`;

const rowsOf = async (dir: string) =>
  (await readJsonl<{ case_id: string; passed: boolean | null; checks: Record<string, boolean> }>(join(dir, 'rows.jsonl'))).map((r) => [
    r.case_id,
    r.passed,
    Object.keys(r.checks),
  ]);

describe('evalog regrade (a real HTTP endpoint; CLI in process and in child processes)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let endpoint: ChatEndpoint;
  let env: Record<string, string | undefined>;

  before(async () => {
    tmp = await tempDir();
    await writeFile(join(tmp.dir, 'qa.jsonl'), CASES.map((c) => JSON.stringify(c)).join('\n'));
    endpoint = await startChatEndpoint((p) => (p.includes('France') ? 'Paris' : p.includes('Japan') ? 'The capital is Tokyo.' : 'Cusco'));
    env = { EVALOG_BASE_URL: endpoint.url, EVALOG_API_KEY: 'sk-test', EVALOG_CACHE_DIR: undefined };
    const source = await runEvalogHere(['run', 'dataset', '--data', 'qa.jsonl', '--model', 'm-1', '--out', 'runs/source'], { cwd: tmp.dir, env });
    expect(source.code, source.stderr).to.equal(0);
  });
  after(async () => {
    await endpoint.close();
    await tmp.cleanup();
  });

  it('grades the source answers with another grader, calling no model; run.json names the source and its log hash', async () => {
    expect(await rowsOf(join(tmp.dir, 'runs/source'))).to.deep.equal([
      ['france', true, ['exact']],
      ['japan', false, ['exact']],
      ['peru', false, ['exact']],
    ]);
    const before = endpoint.calls;
    const r = await runEvalog(['regrade', 'runs/source', '--out', 'runs/contains', '--grader', 'contains'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).to.equal(0);
    expect(endpoint.calls - before, 'regrade made no call').to.equal(0);
    expect(await rowsOf(join(tmp.dir, 'runs/contains'))).to.deep.equal([
      ['france', true, ['contains']],
      ['japan', true, ['contains']],
      ['peru', false, ['contains']],
    ]);
    const runJson = JSON.parse(await readFile(join(tmp.dir, 'runs/contains/run.json'), 'utf8'));
    const exported = await runEvalogHere(['export', 'runs/source'], { cwd: tmp.dir, env });
    const sha = createHash('sha256').update(exported.stdout).digest('hex');
    expect(runJson.provenance.regrade).to.deep.equal({ sourceRunId: 'source', sourceLogSha256: sha });
    expect(runJson.config.grader).to.equal('contains');
    const source = JSON.parse(await readFile(join(tmp.dir, 'runs/source/run.json'), 'utf8'));
    expect(runJson.jobs ?? runJson.job_order).to.deep.equal(source.jobs ?? source.job_order);
    const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/contains/usage.json'), 'utf8'));
    expect(usage.calls.map((c: { outcome: string }) => c.outcome)).to.deep.equal(['cached', 'cached', 'cached']);
    expect(usage.report.calls).to.equal(0);
    // Nothing of the staging folder is left beside the run.
    expect((await readdir(join(tmp.dir, 'runs'))).sort()).to.deep.equal(['contains', 'source']);

    const replay = await runEvalogHere(['replay', 'runs/contains'], { cwd: tmp.dir, env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
  });

  it("without --grader it grades with the suite's current grader, reproducing the source's verdicts", async () => {
    const r = await runEvalog(['regrade', 'runs/source', '--out', 'runs/same'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).to.equal(0);
    expect(await rowsOf(join(tmp.dir, 'runs/same'))).to.deep.equal(await rowsOf(join(tmp.dir, 'runs/source')));
  });

  it('an agent suite (tools, parent and worker) played by evalog mock-server: the regrade sends it nothing and replays', async () => {
    const server = await startMockServer([], tmp.dir);
    try {
      const mockEnv = { ...env, EVALOG_BASE_URL: server.url };
      const source = await runEvalogHere(['run', 'smoke', '--model', 'evalog-scripted', '--out', 'runs/smoke-mock'], { cwd: tmp.dir, env: mockEnv });
      expect(source.code, source.stderr).to.equal(0);
      const before = (await server.stats()).requests;
      expect(before).to.be.above(0);
      const r = await runEvalog(['regrade', 'runs/smoke-mock', '--out', 'runs/smoke-regraded'], { cwd: tmp.dir, env: mockEnv });
      expect(r.code, r.stderr).to.equal(0);
      expect((await server.stats()).requests - before, 'the mock server saw no request').to.equal(0);
      const verdicts = async (run: string) =>
        (await readJsonl<{ job_id: string; passed: boolean | null }>(join(tmp.dir, 'runs', run, 'rows.jsonl'))).map((x) => [x.job_id, x.passed]);
      expect(await verdicts('smoke-regraded')).to.deep.equal(await verdicts('smoke-mock'));
      const usage = JSON.parse(await readFile(join(tmp.dir, 'runs/smoke-regraded/usage.json'), 'utf8'));
      const sourceUsage = JSON.parse(await readFile(join(tmp.dir, 'runs/smoke-mock/usage.json'), 'utf8'));
      expect(usage.cached.calls, 'one answer per successful source call').to.equal(sourceUsage.report.outcomes.success);
      expect(usage.report.calls).to.equal(0);
      const replay = await runEvalogHere(['replay', 'runs/smoke-regraded'], { cwd: tmp.dir, env: mockEnv });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    } finally {
      await server.stop();
    }
  });

  it('bad input is one line with exit 2 and nothing written', async () => {
    const cases: [string[], RegExp][] = [
      [['--out', 'runs/x1', '--grader', 'bogus'], /grader.*unknown grader "bogus"/],
      [['--grader', 'contains'], /^evalog regrade: --out DIR is required/],
      [['--out', 'runs/source'], /exists already/],
    ];
    for (const [args, message] of cases) {
      const r = await runEvalog(['regrade', 'runs/source', ...args], { cwd: tmp.dir, env });
      expect(r.code, r.stderr).to.equal(2);
      expect(r.stderr.trim().split('\n'), r.stderr).to.have.length(1);
      expect(r.stderr).to.match(message);
    }
    const smoke = await runEvalogHere(['run', 'smoke', '--out', 'runs/smoke'], { cwd: tmp.dir, env: { ...env, EVALOG_BASE_URL: undefined } });
    expect(smoke.code, smoke.stderr).to.equal(0);
    const r = await runEvalog(['regrade', 'runs/smoke', '--out', 'runs/x2', '--grader', 'exact'], { cwd: tmp.dir, env });
    expect(r.code).to.equal(2);
    expect(r.stderr.trim()).to.equal('evalog regrade: --grader: suite smoke has no grader to choose (its config has no "grader" field)');
    const left = await readdir(join(tmp.dir, 'runs'));
    for (const name of ['x1', 'x2']) expect(left).not.to.include(name);
    expect(
      left.filter((n) => n.startsWith('.')),
      'no staging folder is left',
    ).to.deep.equal([]);
  });

  it('a suite whose prompt changed since the source run: exit 2 naming the job, nothing written', async () => {
    await writeFile(join(tmp.dir, 'capitals.ts'), suiteFile('What is the capital of '));
    const source = await runEvalogHere(['run', './capitals.ts', '--model', 'm-1', '--out', 'runs/capitals'], { cwd: tmp.dir, env });
    expect(source.code, source.stderr).to.equal(0);
    const same = await runEvalog(['regrade', 'runs/capitals', '--out', 'runs/capitals-same'], { cwd: tmp.dir, env });
    expect(same.code, same.stderr).to.equal(0);
    await writeFile(join(tmp.dir, 'capitals.ts'), suiteFile('Name the capital city of '));
    const before = endpoint.calls;
    const r = await runEvalog(['regrade', 'runs/capitals', '--out', 'runs/capitals-2'], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stderr).not.to.match(/^\s+at /m);
    expect(r.stderr.trim().split('\n').at(-1)).to.match(/^evalog regrade: job fr:default:1: call \S+: the request differs from the one the source run sent/);
    expect(endpoint.calls - before).to.equal(0);
    const left = await readdir(join(tmp.dir, 'runs'));
    expect(left).not.to.include('capitals-2');
    expect(left.filter((n) => n.startsWith('.'))).to.deep.equal([]);
  });

  it('a request the source did not send is refused naming the job (the source-log caller)', async () => {
    const log = await FileEventLog.open({ root: join(tmp.dir, 'runs'), readOnly: true });
    try {
      const rec = await loadRecording(log, 'source');
      const caller = sourceCaller(rec);
      const job = rec.started.jobs.find((j) => j.caseId === 'japan')!;
      const requested = rec.byScope.get(job.jobId)!.find((e) => e.type === 'ProviderCallRequested')!;
      const callId = (requested.data as { callId: string }).callId;
      const params = (requested.data as { params: Record<string, unknown> }).params;
      const request = { model: 'm-1', messages: [{ role: 'user' as const, content: 'What is the capital of Japan?' }], tools: [], params };
      const options = { signal: new AbortController().signal, timeoutMs: 1000, site: { jobId: job.jobId, callId, seed: job.seed } };
      const served = await caller.call(request, options);
      expect(served.ok && served.data.content).to.equal('The capital is Tokyo.');
      expect(served.ok && typeof served.data.cached).to.equal('string');
      const changed = { ...request, messages: [{ role: 'user' as const, content: 'What is the capital of Japan? Answer in one word.' }] };
      const err = await caller.call(changed, options).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(SourceMismatchError);
      expect((err as Error).message).to.equal(
        `job ${job.jobId}: call ${callId}: the request differs from the one the source run sent (changed prompts, tools or sampling?)`,
      );
      const other = await caller.call(request, { ...options, site: { ...options.site, jobId: 'nobody:default:1' } }).catch((e: unknown) => e);
      expect((other as Error).message).to.match(/^job nobody:default:1: .*has no successful answer/);
    } finally {
      await log.close();
    }
  });
});

import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { collect, readJsonl, runEvalog, runEvalogHere, startEvalog, tempDir } from '../support/cli.js';
import { completion, startRecordingEndpoint, type RecordedRequest, type RecordingEndpoint } from '../support/recording-endpoint.js';

// Single-call dataset jobs against a real HTTP endpoint that fails chosen cases on the first run
// (400: not retried by the provider policy; 500: retried up to max attempts), then is healthy.
const CASES = [
  { id: 'ok', input: 'Say OK.', expected: 'OK' },
  { id: 'bad-request', input: 'Say BR.', expected: 'BR' },
  { id: 'server-error', input: 'Say SE.', expected: 'SE' },
  { id: 'wrong', input: 'Say W.', expected: 'W' },
];

interface Row {
  job_id: string;
  case_id: string;
  status: string;
  passed: boolean | null;
  attempts?: number;
  calls: number;
  failed_calls: number;
}
interface Usage {
  report: { calls: number; outcomes: Record<'success' | 'failure' | 'aborted' | 'unknown', number> };
  calls: { job_id: string; call_id: string; outcome: string }[];
}

const caseOf = (r: RecordedRequest) => {
  const messages = (r.body?.messages ?? []) as { content: string }[];
  const text = messages.map((m) => m.content).join('\n');
  return CASES.find((c) => text.includes(c.input))!;
};

describe('evalog retry (child processes, resumes in process; a real HTTP endpoint)', function () {
  this.timeout(240_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: RecordingEndpoint;
  let healthy = false;
  const env = () => ({ EVALOG_BASE_URL: server.url, EVALOG_API_KEY: 'test-key' });
  const ARGS = ['--model', 'm'];

  before(async () => {
    tmp = await tempDir();
    await writeFile(join(tmp.dir, 'data.jsonl'), `${CASES.map((c) => JSON.stringify(c)).join('\n')}\n`);
    await writeFile(join(tmp.dir, 'config.json'), JSON.stringify({ provider: { maxAttempts: 2, backoffMs: 0, maxBackoffMs: 0 } }));
    server = await startRecordingEndpoint((r) => {
      const c = caseOf(r);
      if (!healthy && c.id === 'bad-request') return { status: 400, body: { error: { message: 'bad request' } } };
      if (!healthy && c.id === 'server-error') return { status: 500, body: { error: { message: 'boom' } } };
      if (c.id === 'wrong') return completion(healthy ? 'W' : 'not it');
      return completion(c.expected);
    });
  });
  after(async () => {
    await server.close();
    await tmp.cleanup();
  });

  const rowsOf = async (run: string) => readJsonl<Row>(join(tmp.dir, run, 'rows.jsonl'));
  const usageOf = async (run: string) => JSON.parse(await readFile(join(tmp.dir, run, 'usage.json'), 'utf8')) as Usage;
  const byCase = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.case_id, r]));

  it('runs again only the jobs that ended in errors, one call each; usage keeps both attempts; rows show the last with its count', async () => {
    const first = await runEvalog(['run', 'dataset', '--data', 'data.jsonl', '--out', 'runs/r', '--config', 'config.json', ...ARGS], {
      cwd: tmp.dir,
      env: env(),
    });
    expect([0, 3], first.stderr).to.include(first.code);
    const before = byCase(await rowsOf('runs/r'));
    expect(before['bad-request']!.status).to.equal('failed');
    expect(before['server-error']!.status).to.equal('failed');
    expect(before.ok!.status).to.equal('succeeded');
    expect(before.wrong!.passed).to.equal(false);
    const firstUsage = await usageOf('runs/r');
    const sentFirst = server.requests.length;
    expect(firstUsage.report.calls).to.equal(sentFirst);

    healthy = true;
    const retried = await runEvalog(['retry', 'runs/r', ...ARGS], { cwd: tmp.dir, env: env() });
    expect(retried.code, retried.stderr).to.equal(0);
    expect(retried.stderr).to.match(/retry 1 of run r: 2 jobs run again/);
    // Exactly one call per retried job, and only theirs, each named as the job's second attempt.
    const sent = server.requests.slice(sentFirst);
    expect(sent.map((r) => caseOf(r).id).sort()).to.deep.equal(['bad-request', 'server-error']);
    for (const r of sent) expect(r.callKey).to.match(/^r\/[^/]+\/try-2\/answer\/attempt-1$/);

    const rows = byCase(await rowsOf('runs/r'));
    for (const id of ['bad-request', 'server-error']) {
      expect(rows[id], id).to.include({ status: 'succeeded', passed: true, attempts: 2, calls: 1, failed_calls: 0 });
    }
    // Jobs not retried keep their rows as they were, without an attempts field.
    expect(rows.ok).to.deep.equal(before.ok);
    expect(rows.wrong).to.deep.equal(before.wrong);
    expect(rows.ok).to.not.have.property('attempts');

    // usage.json counts both attempts: the first attempts' failed calls and the retries' calls.
    const usage = await usageOf('runs/r');
    expect(usage.report.calls).to.equal(server.requests.length);
    expect(usage.calls.filter((c) => c.call_id.startsWith('try-2/')).map((c) => c.outcome)).to.deep.equal(['success', 'success']);
    for (const c of firstUsage.calls) expect(usage.calls).to.deep.include(c);
    const run = JSON.parse(await readFile(join(tmp.dir, 'runs/r/run.json'), 'utf8'));
    expect(run.status).to.equal('completed');
    expect(run.retries).to.deep.equal([{ retry: 1, reason: 'errors', jobs: 2 }]);
  });

  it('with --failed runs the job that did not pass; then nothing is left to retry', async () => {
    const sentBefore = server.requests.length;
    const failed = await runEvalog(['retry', 'runs/r', '--failed', ...ARGS], { cwd: tmp.dir, env: env() });
    expect(failed.code, failed.stderr).to.equal(0);
    expect(server.requests.slice(sentBefore).map((r) => caseOf(r).id)).to.deep.equal(['wrong']);
    expect(byCase(await rowsOf('runs/r')).wrong).to.include({ passed: true, attempts: 2 });

    const none = await runEvalog(['retry', 'runs/r', '--failed', ...ARGS], { cwd: tmp.dir, env: env() });
    expect(none.code, none.stderr).to.equal(0);
    expect(none.stderr).to.match(/no job to retry/);
    expect(server.requests.length).to.equal(sentBefore + 1);
  });

  it('replays the retried log with no divergence, and rebuilds the same outputs', async () => {
    const replay = await runEvalogHere(['replay', 'runs/r'], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.not.match(/diverge/i);
    const rebuilt = await runEvalogHere(['rebuild', 'runs/r', '--out', 'runs/rebuilt'], { cwd: tmp.dir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    for (const f of ['rows.jsonl', 'usage.json', 'summary.json', 'run.json']) {
      expect(await readFile(join(tmp.dir, 'runs/rebuilt', f), 'utf8'), f).to.equal(await readFile(join(tmp.dir, 'runs/r', f), 'utf8'));
    }
  });

  it('refuses a literal endpoint not given again', async () => {
    const noEndpoint = await runEvalog(['retry', 'runs/r'], { cwd: tmp.dir });
    expect(noEndpoint.code).to.equal(2);
    expect(noEndpoint.stderr).to.match(/^evalog retry: .*EVALOG_BASE_URL/m);
  });

  it('an interrupted retry is refused by retry, finished by resume without sending a completed call again, and replays', async () => {
    const ids = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
    await writeFile(join(tmp.dir, 'slow.jsonl'), `${ids.map((id) => JSON.stringify({ id, input: `Say ${id}.`, expected: id })).join('\n')}\n`);
    let phase: 'fail' | 'slow' = 'fail';
    const answered = new Set<RecordedRequest>();
    const slow = await startRecordingEndpoint(async (r) => {
      const id = ids.find((k) => r.raw.includes(`Say ${k}.`))!;
      if (phase === 'fail') return { status: 400, body: { error: { message: 'bad request' } } };
      await new Promise((done) => setTimeout(done, 300));
      answered.add(r);
      return completion(id);
    });
    try {
      const e = { EVALOG_BASE_URL: slow.url };
      const first = await runEvalog(['run', 'dataset', '--data', 'slow.jsonl', '--out', 'runs/k', '--concurrency', '1', ...ARGS], { cwd: tmp.dir, env: e });
      expect([0, 3], first.stderr).to.include(first.code);
      phase = 'slow';
      const sentFirst = slow.requests.length;
      const child = startEvalog(['retry', 'runs/k', '--verbose', ...ARGS], { cwd: tmp.dir, env: e });
      let ended = 0;
      let sent = false; // one signal: a second one exits at once
      child.stderr!.on('data', (d: Buffer) => {
        ended += (d.toString().match(/^job .* passed$/gm) ?? []).length; // the retry's own jobs (recorded ones failed)
        if (ended >= 2 && !sent) sent = child.kill('SIGINT');
      });
      const cut = await collect(child);
      expect(cut.code, cut.stderr).to.equal(130);
      expect(cut.stderr).to.match(/Continue it with: evalog resume runs\/k --verbose --model m/);
      const inRetry = slow.requests.length - sentFirst;
      expect(inRetry).to.be.greaterThan(1).and.lessThan(ids.length);

      const again = await runEvalog(['retry', 'runs/k', ...ARGS], { cwd: tmp.dir, env: e });
      expect(again.code).to.equal(2);
      expect(again.stderr).to.match(/not complete; finish it first with: evalog resume runs\/k/);

      const resumed = await runEvalogHere(['resume', 'runs/k', ...ARGS], { cwd: tmp.dir, env: e });
      expect(resumed.code, resumed.stderr).to.equal(0);
      // No call answered 200 is sent again; every retried job ended, as its second attempt.
      const keys = slow.requests.filter((r) => answered.has(r)).map((r) => r.callKey);
      expect(keys.length).to.be.at.least(ids.length);
      expect(new Set(keys).size).to.equal(keys.length);
      const rows = await rowsOf('runs/k');
      expect(rows.map((r) => [r.case_id, r.status, r.passed, r.attempts])).to.deep.equal(ids.map((id) => [id, 'succeeded', true, 2]));
      const usage = await usageOf('runs/k');
      // Every request the server saw is in usage; so is the attempt the interrupt cut off, which may
      // or may not have reached the server (an aborted attempt is counted, never dropped).
      const { calls, outcomes } = usage.report;
      expect(slow.requests.length).to.be.within(calls - outcomes.aborted - outcomes.unknown, calls);
      expect(outcomes.aborted + outcomes.unknown).to.be.at.most(1); // one job in flight at concurrency 1

      const replay = await runEvalogHere(['replay', 'runs/k'], { cwd: tmp.dir });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    } finally {
      await slow.close();
    }
  });
});

import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileEventLog } from '../../src/log/file/index.js';
import { collect, readJsonl, runEvalog, runEvalogHere, runKilledAfterJobs, startEvalog, tempDir, withoutWallClock } from '../support/cli.js';
import { checkAttemptsAccounted } from '../support/attempts.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';

const RUN_ARGS = ['--repetitions', '3', '--concurrency', '4', '--model', 'evalog-scripted'];

/** Counts the successful calls recorded in a run's log. */
async function loggedSuccesses(root: string, runId: string): Promise<number> {
  const log = await FileEventLog.open({ root });
  let n = 0;
  for await (const e of log.read(runId)) if (e.type === 'ProviderCallSucceeded') n += 1;
  await log.close();
  return n;
}

/** What the log of a stopped run says of the moment it stopped. */
async function stateAtStop(root: string, runId: string): Promise<{ completed: boolean; unfinishedJobs: string[]; aborted: string[]; failureKinds: string[] }> {
  const log = await FileEventLog.open({ root });
  const started = new Set<string>();
  const ended = new Set<string>();
  const requested = new Set<string>();
  const aborted: string[] = [];
  const failureKinds: string[] = [];
  let completed = false;
  for await (const e of log.read(runId)) {
    if (e.type === 'JobStarted') started.add(e.jobId!);
    if (e.type === 'JobSucceeded' || e.type === 'JobFailed') ended.add(e.jobId!);
    if (e.type === 'ProviderCallRequested') requested.add(`${e.jobId}/${e.data.callId}`);
    if (e.type === 'ProviderCallFailed') {
      failureKinds.push(e.data.kind);
      // An aborted attempt must be one whose request was recorded before it: in flight at the stop.
      if (e.data.kind === 'aborted' && requested.has(`${e.jobId}/${e.data.callId}`)) aborted.push(`${e.jobId}/${e.data.callId}`);
    }
    if (e.type === 'RunCompleted') completed = true;
  }
  await log.close();
  return { completed, unfinishedJobs: [...started].filter((j) => !ended.has(j)), aborted, failureKinds };
}

describe('crash and resume (SIGKILL at several points: runs in child processes, resumes in process)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let server: MockServerProcess;
  let env: Record<string, string>;

  before(async () => {
    tmp = await tempDir();
    server = await startMockServer(['--latency-ms', '5-40'], tmp.dir);
    env = { EVALOG_BASE_URL: server.url };
    const r = await runEvalog(['run', 'smoke', '--out', 'runs/reference', ...RUN_ARGS], { cwd: tmp.dir, env });
    expect(r.code, r.stderr).to.equal(0);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  for (const killAfterJobs of [2, 12, 22]) {
    it(`killed after ${killAfterJobs} of 24 jobs: resume completes, repeats no logged call, and matches an uninterrupted run`, async () => {
      const name = `killed-${killAfterJobs}`;
      const killed = await runKilledAfterJobs(['run', 'smoke', '--out', `runs/${name}`, ...RUN_ARGS], { cwd: tmp.dir, env }, killAfterJobs);
      expect(killed.signal, 'the run was killed').to.equal('SIGKILL');
      // Mid-run: the log has no RunCompleted and holds a job that started and never ended.
      const stop = await stateAtStop(join(tmp.dir, 'runs'), name);
      expect(stop.completed, 'the run had completed before the kill').to.equal(false);
      expect(stop.unfinishedJobs.length, 'a job was running at the kill').to.be.greaterThan(0);

      const before = (await server.stats()).completed;
      const logged = await loggedSuccesses(join(tmp.dir, 'runs'), name);
      const resumed = await runEvalogHere(['resume', `runs/${name}`, '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
      expect(resumed.code, resumed.stderr).to.equal(0);
      const after = (await server.stats()).completed;
      const final = await loggedSuccesses(join(tmp.dir, 'runs'), name);
      // Every call the resumed process completed is a new success in the log: none was a logged one sent again.
      expect(after - before).to.equal(final - logged);

      // Attempts in flight at the kill are in usage.json as `unknown`, each retried as a new attempt:
      // usage.json counts every request the endpoint received, and none twice.
      const cut = await checkAttemptsAccounted(server, join(tmp.dir, 'runs', name), name);
      const cutJobs = new Set(cut.map((c) => c.job_id));
      const rows = (await readJsonl(join(tmp.dir, `runs/${name}/rows.jsonl`))).map(withoutWallClock);
      const reference = (await readJsonl(join(tmp.dir, 'runs/reference/rows.jsonl'))).map(withoutWallClock);
      // Jobs concluded as in the uninterrupted run; a job without a cut-off attempt matches it whole.
      const outcome = (r: Record<string, unknown>) => ({ job: r.job_id, passed: r.passed, checks: r.checks, stop: r.stop_reason, turns: r.turns });
      expect(rows.map(outcome)).to.deep.equal(reference.map(outcome));
      expect(rows.filter((r) => !cutJobs.has(r.job_id as string))).to.deep.equal(reference.filter((r) => !cutJobs.has(r.job_id as string)));
      const usage = JSON.parse(await readFile(join(tmp.dir, `runs/${name}`, 'usage.json'), 'utf8'));
      const refUsage = JSON.parse(await readFile(join(tmp.dir, 'runs/reference', 'usage.json'), 'utf8'));
      expect(usage.report.calls).to.equal(refUsage.report.calls + cut.length);
      expect(usage.report.outcomes.unknown).to.equal(cut.length);
      expect(usage.report.usage.fields.totalTokens.sum).to.equal(refUsage.report.usage.fields.totalTokens.sum);
      const replay = await runEvalogHere(['replay', `runs/${name}`], { cwd: tmp.dir });
      expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    });
  }

  it('SIGINT mid-run stops gracefully (in-flight calls recorded as aborted, exit 130, resume hint); resume completes with no repeated call', async () => {
    // Calls that take 300-600 ms: with four jobs running, the signal lands while calls are in flight.
    const slow = await startMockServer(['--latency-ms', '300-600'], tmp.dir);
    try {
      await sigintAndResume(slow);
    } finally {
      await slow.stop();
    }
  });

  async function sigintAndResume(server: MockServerProcess): Promise<void> {
    const env = { EVALOG_BASE_URL: server.url };
    const child = startEvalog(['run', 'smoke', '--out', 'runs/sigint', '--verbose', ...RUN_ARGS], { cwd: tmp.dir, env });
    let finished = 0;
    child.stderr!.on('data', (d: Buffer) => {
      finished += (d.toString().match(/^job /gm) ?? []).length;
      if (finished >= 8 && !child.killed) child.kill('SIGINT');
    });
    const stopped = await collect(child);
    expect(stopped.code, stopped.stderr).to.equal(130);
    expect(stopped.stderr).to.match(/evalog resume .*sigint/);

    const stop = await stateAtStop(join(tmp.dir, 'runs'), 'sigint');
    expect(stop.completed, 'the run had completed before the signal').to.equal(false);
    expect(stop.unfinishedJobs.length, 'a job was running at the signal').to.be.greaterThan(0);
    // The signal landed mid-call: at least one attempt in flight was recorded as aborted, and no other failure.
    expect(stop.aborted.length, 'an in-flight call was aborted').to.be.greaterThan(0);
    expect(stop.failureKinds).to.deep.equal(stop.aborted.map(() => 'aborted'));

    const before = (await server.stats()).completed;
    const logged = await loggedSuccesses(join(tmp.dir, 'runs'), 'sigint');
    const resumed = await runEvalogHere(['resume', 'runs/sigint', '--model', 'evalog-scripted'], { cwd: tmp.dir, env });
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect((await server.stats()).completed - before).to.equal((await loggedSuccesses(join(tmp.dir, 'runs'), 'sigint')) - logged);
    // Ctrl-C and SIGKILL agree: the interrupted attempts are in usage.json (aborted), each retried as
    // a new attempt, so usage.json counts every request the endpoint received, and none twice.
    expect(await checkAttemptsAccounted(server, join(tmp.dir, 'runs/sigint'), 'sigint')).to.deep.equal([]);
    const rows = (await readJsonl(join(tmp.dir, 'runs/sigint/rows.jsonl'))).map(withoutWallClock);
    const reference = (await readJsonl(join(tmp.dir, 'runs/reference/rows.jsonl'))).map(withoutWallClock);
    // Aborted attempts stay in the log as their own calls, so compare what the jobs concluded.
    const outcome = (r: Record<string, unknown>) => ({ job: r.job_id, passed: r.passed, checks: r.checks, stop: r.stop_reason, turns: r.turns });
    expect(rows.map(outcome)).to.deep.equal(reference.map(outcome));
  }

  it('context-snapshot killed mid-run: resume repeats no logged call and ends with the same rows', async () => {
    const args = ['--model', 'evalog-scripted'];
    const ref = await runEvalog(['run', 'context-snapshot', '--out', 'runs/cs-reference', ...args], { cwd: tmp.dir, env });
    expect(ref.code, ref.stderr).to.equal(0);
    expect((await runKilledAfterJobs(['run', 'context-snapshot', '--out', 'runs/cs-killed', ...args], { cwd: tmp.dir, env }, 7)).signal).to.equal('SIGKILL');
    const before = (await server.stats()).completed;
    const logged = await loggedSuccesses(join(tmp.dir, 'runs'), 'cs-killed');
    const resumed = await runEvalogHere(['resume', 'runs/cs-killed', ...args], { cwd: tmp.dir, env });
    expect(resumed.code, resumed.stderr).to.equal(0);
    expect((await server.stats()).completed - before).to.equal((await loggedSuccesses(join(tmp.dir, 'runs'), 'cs-killed')) - logged);
    const cutOff = new Map<string, number>();
    for (const c of await checkAttemptsAccounted(server, join(tmp.dir, 'runs/cs-killed'), 'cs-killed')) cutOff.set(c.job_id, (cutOff.get(c.job_id) ?? 0) + 1);
    const strip = (r: Record<string, unknown>): Record<string, unknown> => ({ ...r, seconds: null, lead_seconds: null });
    type Part = { requests: number; complete: boolean };
    // A job with a cut-off attempt has that attempt as one more request of unknown cost (so its
    // usage is incomplete); nothing else differs.
    const recount = (r: Record<string, unknown>) => {
      if (!cutOff.has(r.job_id as string)) return r;
      const part = (u: unknown) => ({ ...(u as Part), requests: null, complete: null });
      return { ...r, usage: part(r.usage), lead_usage: part(r.lead_usage), worker_usage: part(r.worker_usage) };
    };
    const killed = (await readJsonl(join(tmp.dir, 'runs/cs-killed/rows.jsonl'))).map(strip);
    const reference = (await readJsonl(join(tmp.dir, 'runs/cs-reference/rows.jsonl'))).map(strip);
    expect(killed.map(recount)).to.deep.equal(reference.map(recount));
    for (const [job, n] of cutOff) {
      const [k, ref] = [killed, reference].map((rows) => rows.find((r) => r.job_id === job)!.usage as Part);
      expect(k!.requests, `${job}: its cut-off attempts are counted`).to.equal(ref!.requests + n);
      expect(k!.complete, `${job}: a cut-off attempt's usage is unknown`).to.equal(false);
    }
  });
});

// Scale-out with real processes: a nats-server, a scripted model with latency in its own process,
// the coordinator (`evalog run --workers external`) and several `evalog worker` processes, some of
// them killed (SIGKILL) or paused past their lease (SIGSTOP) mid-run.
import { expect } from 'chai';
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventId, type EvalogEvent, type StoredEvent } from '../../src/events/index.js';
import { planRun } from '../../src/harness/orchestration/launch.js';
import { JobQueue } from '../../src/harness/orchestration/scale-out/index.js';
import { smokeSuite } from '../../src/suites/smoke/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { collect, readJsonl, runEvalog, runEvalogHere, startEvalog, tempDir, withoutWallClock } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { noLatency, noSeconds, readJson, withoutCutOff, type SummaryFile, type UsageFile } from '../support/outputs.js';

/** What these tests read of a usage.json beyond its calls: the report's token total. */
type UsageJson = UsageFile & { report: { usage: { fields: { totalTokens: { sum: number } } } } };

const json = readJson;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// 4 cases × 2 arms × 12 = 96 jobs: eight rounds of the three workers' twelve slots, so a worker
// killed after 10 of its jobs, or the coordinator after 40, leaves half the run or more to take over
// (200 jobs took twice the CPU of the whole file and proved nothing more).
const REPS = 12;
const MODEL = ['--model', 'evalog-scripted'];

/** A worker process and the lines it wrote so far. */
interface WorkerProc {
  child: ChildProcess;
  lines: string[];
  /** Resolves once a line matches. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<string>;
}

async function readRun(url: string, runId: string): Promise<StoredEvent[]> {
  const log = await JetStreamEventLog.connect({ servers: url });
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  await log.close();
  return out;
}

/** Waits until a job has its first model request in the log: the job is then mid-way. */
async function untilRequested(url: string, runId: string, jobId: string): Promise<void> {
  for (let started = false; !started; await sleep(5)) {
    const log = await JetStreamEventLog.connect({ servers: url });
    for await (const e of log.read(runId, { jobId })) if (e.type === 'ProviderCallRequested') started = true;
    await log.close();
  }
}

/** Checks that every event appears once and each job's actor events are numbered 1..n without gaps. */
function expectEachEventOnce(events: readonly StoredEvent[], jobs: number): void {
  const ids = events.map((e) => e.id);
  expect(new Set(ids).size, 'event ids are unique').to.equal(ids.length);
  const byJob = new Map<string, number[]>();
  for (const e of events) {
    if (e.jobId === undefined || e.type === 'JobClaimed') continue;
    const n = Number(e.id.slice(e.id.lastIndexOf('/') + 1));
    (byJob.get(e.jobId) ?? byJob.set(e.jobId, []).get(e.jobId)!).push(n);
  }
  expect(byJob.size).to.equal(jobs);
  for (const [job, ns] of byJob) expect(ns, job).to.deep.equal(ns.map((_, i) => i + 1));
  const ends = events.filter((e) => e.type === 'JobSucceeded' || e.type === 'JobFailed');
  expect(ends.length, 'one end per job').to.equal(jobs);
}

/**
 * Completed attempts per X-Evalog-Call key against the log: a logged attempt was completed exactly
 * once, except one that was in flight when its worker died (requested, no outcome, then another
 * worker's claim), which the new holder had to send again. Returns how many such there were.
 */
function expectNoLoggedCallRepeated(events: readonly StoredEvent[], runId: string, completedByCallKey: Record<string, number>): number {
  const inFlightAtDeath = new Set<string>();
  const open = new Map<string, Set<string>>();
  const succeeded = new Set<string>();
  for (const e of events) {
    if (e.jobId === undefined) continue;
    const mine = open.get(e.jobId) ?? open.set(e.jobId, new Set()).get(e.jobId)!;
    if (e.type === 'ProviderCallRequested') mine.add(e.data.callId);
    else if (e.type === 'ProviderCallSucceeded' || e.type === 'ProviderCallFailed') mine.delete(e.data.callId);
    if (e.type === 'ProviderCallSucceeded') succeeded.add(`${runId}/${e.jobId}/${e.data.callId}`);
    if (e.type === 'JobClaimed') for (const c of mine) inFlightAtDeath.add(`${runId}/${e.jobId}/${c}`);
  }
  const keys = Object.keys(completedByCallKey).filter((k) => k.startsWith(`${runId}/`));
  for (const k of succeeded) expect(completedByCallKey[k], `${k} completed at the model`).to.be.at.least(1);
  for (const k of keys) {
    const allowed = (succeeded.has(k) ? 1 : 0) + (inFlightAtDeath.has(k) ? 1 : 0);
    expect(completedByCallKey[k], `completions of ${k}`).to.be.at.most(Math.max(allowed, 1));
    if (!inFlightAtDeath.has(k)) expect(completedByCallKey[k], `completions of ${k}`).to.equal(succeeded.has(k) ? 1 : 0);
  }
  return [...inFlightAtDeath].filter((k) => (completedByCallKey[k] ?? 0) > 1).length;
}

/** The worker's id, from its first activity line (`evalog worker <id>: ...`). */
function workerIdOf(w: WorkerProc): string {
  const line = w.lines.find((l) => /^evalog worker \S+: /.test(l));
  expect(line, 'a line naming the worker').to.not.equal(undefined);
  return /^evalog worker (\S+): /.exec(line!)![1]!;
}

/** `<job>/<callId>` of the attempts `worker` had requested, without an outcome, when another worker claimed their job. */
function inFlightAtTakeover(events: readonly StoredEvent[], worker: string): string[] {
  const holder = new Map<string, string>();
  const open = new Map<string, Set<string>>();
  const out: string[] = [];
  for (const e of events) {
    if (e.jobId === undefined) continue;
    const mine = open.get(e.jobId) ?? open.set(e.jobId, new Set()).get(e.jobId)!;
    if (e.type === 'JobClaimed') {
      const by = (e.data as { worker: string }).worker;
      if (holder.get(e.jobId) === worker && by !== worker) out.push(...[...mine].map((c) => `${e.jobId}/${c}`));
      holder.set(e.jobId, by);
      mine.clear();
    } else if (e.type === 'ProviderCallRequested') mine.add(e.data.callId);
    else if (e.type === 'ProviderCallSucceeded' || e.type === 'ProviderCallFailed') mine.delete(e.data.callId);
  }
  return out;
}

/** Per job, the worker whose claim was the latest when its end was recorded. */
function finisherByJob(events: readonly StoredEvent[]): Map<string, string> {
  const holder = new Map<string, string>();
  const out = new Map<string, string>();
  for (const e of events) {
    if (e.type === 'JobClaimed') holder.set(e.jobId!, (e.data as { worker: string }).worker);
    if ((e.type === 'JobSucceeded' || e.type === 'JobFailed') && holder.has(e.jobId!)) out.set(e.jobId!, holder.get(e.jobId!)!);
  }
  return out;
}

describe('scale-out: evalog worker processes share a run on JetStream (real nats-server, child processes)', function () {
  this.timeout(600_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;
  let model: MockServerProcess;
  let env: Record<string, string>;
  const workers: WorkerProc[] = [];

  const startWorker = (extra: string[] = []): WorkerProc => {
    const child = startEvalog(['worker', '--nats', nats.url, '--suite', 'smoke', '--concurrency', '4', ...MODEL, ...extra], { cwd: tmp.dir, env });
    const lines: string[] = [];
    const listeners = new Set<() => void>();
    let buf = '';
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split('\n');
      buf = parts.pop()!;
      lines.push(...parts);
      for (const l of listeners) l();
    });
    const w: WorkerProc = {
      child,
      lines,
      waitFor: (re, timeoutMs = 120_000) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const hit = lines.find((l) => re.test(l));
            if (hit) {
              listeners.delete(check);
              clearTimeout(t);
              resolve(hit);
            }
          };
          const t = setTimeout(() => {
            listeners.delete(check);
            reject(new Error(`no line ${re} from the worker within ${timeoutMs} ms:\n${lines.join('\n')}`));
          }, timeoutMs);
          listeners.add(check);
          check();
        }),
    };
    workers.push(w);
    return w;
  };
  const stopWorkers = async () => {
    await Promise.all(
      workers.splice(0).map(async (w) => {
        if (w.child.exitCode !== null || w.child.signalCode !== null) return;
        w.child.kill('SIGCONT');
        const done = collect(w.child);
        w.child.kill('SIGTERM');
        await done;
      }),
    );
  };

  before(async () => {
    tmp = await tempDir();
    nats = await startNatsServer();
    model = await startMockServer(['--latency-ms', '5-30'], tmp.dir);
    env = { EVALOG_BASE_URL: model.url };
    const ref = await runEvalogHere(['run', 'smoke', '--out', 'runs/reference', '--repetitions', String(REPS), '--concurrency', '8', ...MODEL], {
      cwd: tmp.dir,
      env,
    });
    expect(ref.code, ref.stderr).to.equal(0);
  });
  afterEach(stopWorkers);
  after(async () => {
    await stopWorkers();
    await model?.stop();
    await nats?.stop();
    await tmp.cleanup();
  });

  const expectSameOutputs = async (dir: string, refDir = join(tmp.dir, 'runs/reference')) => {
    const read = async (d: string) => ({
      rows: (await readJsonl(join(d, 'rows.jsonl'))).map(withoutWallClock),
      summary: noSeconds(await json<SummaryFile>(join(d, 'summary.json'))),
      usage: noLatency(await json<UsageJson>(join(d, 'usage.json'))),
    });
    const [got, ref] = [await read(dir), await read(refDir)];
    if (got.usage.calls.every((c) => c.outcome !== 'unknown')) {
      expect(got).to.deep.equal(ref);
      return;
    }
    // A job taken over mid-call keeps that attempt as `unknown` (it may have reached the model) and
    // sends a new one; apart from those attempts and the counts they change, the outputs are equal.
    const a = withoutCutOff(got.rows, got.summary, got.usage);
    const b = withoutCutOff(ref.rows, ref.summary, ref.usage);
    const touched = withoutCutOff(ref.rows, ref.summary, { calls: got.usage.calls });
    expect(a.rows).to.deep.equal(touched.rows);
    expect(a.summary).to.deep.equal(touched.summary);
    expect(a.usage).to.deep.equal(b.usage);
    expect(got.usage.report.usage.fields.totalTokens.sum).to.equal(ref.usage.report.usage.fields.totalTokens.sum);
  };

  it('three workers run 96 jobs; outputs equal an embedded run, every job ran once, watch and runs show who did what', async () => {
    const ws = [startWorker(), startWorker(), startWorker()];
    await Promise.all(ws.map((w) => w.waitFor(/taking jobs/)));
    const r = await runEvalog(
      ['run', 'smoke', '--nats', nats.url, '--workers', 'external', '--out', 'runs/three', '--repetitions', String(REPS), '--concurrency', '8', ...MODEL],
      { cwd: tmp.dir, env },
    );
    expect(r.code, r.stderr).to.equal(0);
    await expectSameOutputs(join(tmp.dir, 'runs/three'));

    const events = await readRun(nats.url, 'three');
    expectEachEventOnce(events, 8 * REPS);
    const claims = events.filter((e) => e.type === 'JobClaimed');
    expect(claims.length, 'one claim per job').to.equal(8 * REPS);
    const byWorker = new Set(claims.map((e) => (e.data as { worker: string }).worker));
    expect(byWorker.size, 'every worker took jobs').to.equal(3);
    expect(expectNoLoggedCallRepeated(events, 'three', (await model.stats()).completedByCallKey)).to.equal(0);

    const watch = await runEvalogHere(['watch', 'three', '--nats', nats.url, '--type', 'JobClaimed'], { cwd: tmp.dir });
    expect(watch.code, watch.stderr).to.equal(0);
    expect(watch.stdout.trim().split('\n')).to.have.length(8 * REPS);
    expect(watch.stdout).to.match(/JobClaimed\s+worker=\S+ delivery=1/);
    const runs = await runEvalogHere(['runs', '--nats', nats.url, '--json'], { cwd: tmp.dir });
    const info = runs.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((x) => x.runId === 'three');
    expect(info.jobs).to.include({ planned: 8 * REPS, pending: 0, running: 0, succeeded: 8 * REPS });
    expect(info.jobs.workers).to.have.length(3);

    // Graceful stop: SIGTERM ends an idle worker with exit 0.
    const done = collect(ws[0]!.child);
    ws[0]!.child.kill('SIGTERM');
    expect((await done).code).to.equal(0);
    expect(ws[0]!.lines.join('\n')).to.match(/stopped/);
  });

  it('a worker killed mid-run (and another started): the run completes, each event once, no logged call sent again', async () => {
    const [a] = [startWorker(['--lease', '2']), startWorker(['--lease', '2']), startWorker(['--lease', '2'])];
    const run = startEvalog(
      [
        'run',
        'smoke',
        '--nats',
        nats.url,
        '--workers',
        'external',
        '--lease',
        '2',
        '--out',
        'runs/killed',
        '--repetitions',
        String(REPS),
        '--concurrency',
        '8',
        ...MODEL,
      ],
      { cwd: tmp.dir, env },
    );
    // Kill a worker once it has finished a few jobs and holds others.
    let ended = 0;
    await new Promise<void>((resolve) => {
      const check = () => {
        ended = a!.lines.filter((l) => /succeeded|failed/.test(l)).length;
        if (ended >= 10) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
    a!.child.kill('SIGKILL');
    const replacement = startWorker(['--lease', '2']);
    const r = await collect(run);
    expect(r.code, r.stderr).to.equal(0);
    await expectSameOutputs(join(tmp.dir, 'runs/killed'));

    const events = await readRun(nats.url, 'killed');
    expectEachEventOnce(events, 8 * REPS);
    const takeovers = events.filter((e) => e.type === 'JobClaimed' && (e.data as { delivery: number }).delivery > 1);
    expect(takeovers.length, "the killed worker's jobs were redelivered and taken over").to.be.greaterThan(0);
    const resumed = takeovers.filter((e) => (e.data as { resumedAfter: number }).resumedAfter > 0);
    expect(resumed.length, 'at least one job was resumed from its events, not restarted').to.be.greaterThan(0);
    expectNoLoggedCallRepeated(events, 'killed', (await model.stats()).completedByCallKey);
    // The killed worker's unfinished jobs were finished under another worker's claim.
    const killedId = workerIdOf(a!);
    const finishers = finisherByJob(events);
    const heldByKilled = [...new Set(events.filter((e) => e.type === 'JobClaimed' && (e.data as { worker: string }).worker === killedId).map((e) => e.jobId!))];
    const takenOver = heldByKilled.filter((j) => finishers.get(j) !== killedId);
    expect(takenOver.length, 'a job of the killed worker finished by another').to.be.greaterThan(0);
    expect(
      takeovers.map((e) => (e.data as { worker: string }).worker),
      'takeovers by the living workers only',
    ).to.not.include(killedId);
    expect(
      replacement.lines.some((l) => /taking jobs/.test(l)),
      'the replacement worker joined',
    ).to.equal(true);

    const replay = await runEvalogHere(['replay', 'killed', '--nats', nats.url], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
  });

  it('SIGTERM hands running jobs back (grace 0) and exits 0; another worker finishes them from their events', async () => {
    const reps = 3;
    const a = startWorker(['--grace', '0', '--concurrency', '2']);
    await a.waitFor(/taking jobs/);
    const run = startEvalog(
      ['run', 'smoke', '--nats', nats.url, '--workers', 'external', '--out', 'runs/handback', '--repetitions', String(reps), '--concurrency', '8', ...MODEL],
      { cwd: tmp.dir, env },
    );
    const took = await a.waitFor(/took handback /);
    const job = took.split(' ').pop()!;
    await untilRequested(nats.url, 'handback', job);
    const exit = collect(a.child);
    a.child.kill('SIGTERM');
    expect((await exit).code).to.equal(0);
    expect(a.lines.join('\n')).to.match(new RegExp(`handback ${job} handed back`));
    startWorker();
    const r = await collect(run);
    expect(r.code, r.stderr).to.equal(0);
    const events = await readRun(nats.url, 'handback');
    expectEachEventOnce(events, 8 * reps);
    // A call in flight at the stop is recorded as aborted; one between calls is simply not made.
    const aborted = events.filter((e) => e.jobId === job && e.type === 'ProviderCallFailed' && (e.data as { kind: string }).kind === 'aborted');
    expect(aborted.length).to.be.at.most(1);
    const claims = events.filter((e) => e.jobId === job && e.type === 'JobClaimed').map((e) => e.data as { delivery: number; resumedAfter: number });
    expect(claims, 'handed back, then resumed from its events by the other worker').to.have.length(2);
    expect(claims[1]!.resumedAfter).to.be.greaterThan(0);
  });

  it('the coordinator killed mid-run: workers go on, and resume --workers external finishes the run with equal outputs', async () => {
    startWorker();
    startWorker();
    const args = ['--nats', nats.url, '--workers', 'external', '--repetitions', String(REPS), '--concurrency', '8', ...MODEL];
    const run = startEvalog(['run', 'smoke', '--out', 'runs/orphaned', '--verbose', ...args], { cwd: tmp.dir, env });
    let done = 0;
    run.stderr!.on('data', (d: Buffer) => {
      done += (d.toString().match(/^job /gm) ?? []).length;
      if (done >= 40 && run.exitCode === null) run.kill('SIGKILL');
    });
    expect((await collect(run)).signal).to.equal('SIGKILL');
    const resumed = await runEvalog(['resume', 'orphaned', '--nats', nats.url, '--workers', 'external', '--out', 'runs/orphaned', ...MODEL], {
      cwd: tmp.dir,
      env,
    });
    expect(resumed.code, resumed.stderr).to.equal(0);
    await expectSameOutputs(join(tmp.dir, 'runs/orphaned'));
    expectEachEventOnce(await readRun(nats.url, 'orphaned'), 8 * REPS);
  });

  it('a job that crashes every worker taking it is recorded as failed (reason error) after 3 deliveries', async () => {
    // A plan whose job names a case the suite does not have: the job machine throws (a bug-like crash).
    const runId = 'crashing';
    const started = planRun(await smokeSuite.configure(smokeSuite.defaults()).prepare(), { scripted: true });
    const job = { ...started.jobs[0]!, jobId: 'no_such_case:full_handoff:1', caseId: 'no_such_case' };
    const log = await JetStreamEventLog.connect({ servers: nats.url });
    try {
      await log.append([
        {
          id: eventId(runId, undefined, 1),
          runId,
          type: 'RunStarted',
          v: 1,
          at: '2026-01-01T00:00:00.000Z',
          actor: 'run',
          data: { ...started, jobs: [job] },
        } as EvalogEvent,
      ]);
      await (await JobQueue.open(log.nc)).publish('smoke', runId, [job.jobId]);
      const w = startWorker(['--lease', '2']);
      await w.waitFor(/crashed on 3 deliveries: recorded as failed/, 60_000);
      const events: StoredEvent[] = [];
      for await (const e of log.read(runId, { jobId: job.jobId })) events.push(e);
      const failed = events.filter((e) => e.type === 'JobFailed');
      expect(failed).to.have.length(1);
      expect(failed[0]!.data).to.include({ reason: 'error' });
      expect((failed[0]!.data as { message: string }).message).to.match(/3 deliveries.*no_such_case/);
      expect(w.lines.filter((l) => /took crashing/.test(l))).to.have.length(3);
    } finally {
      await log.close();
    }
  });

  it('a worker paused past its lease loses its job to another; resumed, its late events are refused and change nothing', async () => {
    const reps = 5;
    const a = startWorker(['--lease', '2', '--concurrency', '2']);
    await a.waitFor(/taking jobs/);
    const run = startEvalog(
      [
        'run',
        'smoke',
        '--nats',
        nats.url,
        '--workers',
        'external',
        '--lease',
        '2',
        '--out',
        'runs/paused',
        '--repetitions',
        String(reps),
        '--concurrency',
        '8',
        ...MODEL,
      ],
      { cwd: tmp.dir, env },
    );
    const took = await a.waitFor(/took paused /);
    const heldJob = took.split(' ').pop()!;
    // Pause it mid-job: after its claim and its first model request are in the log.
    await untilRequested(nats.url, 'paused', heldJob);
    a.child.kill('SIGSTOP');
    const b = startWorker(['--lease', '2']);
    const r = await collect(run);
    expect(r.code, r.stderr).to.equal(0);
    const before = await readRun(nats.url, 'paused');
    const modelBefore = await model.stats();
    a.child.kill('SIGCONT');
    // The paused worker wakes up with its calls answered meanwhile, tries to record them, and is
    // refused by the log (fencing): it says so for the job, rather than finishing it.
    const ended = await a.waitFor(new RegExp(`paused ${heldJob} (succeeded|failed|lost|handed back|already finished)`), 60_000);
    expect(ended).to.match(/lost to another worker \(its late events were refused\)$/);
    await sleep(500);
    const after = await readRun(nats.url, 'paused');
    // Event by event, content and position: not one late event landed, not even one with an id the
    // log already had (id dedup alone would also keep the ids unchanged, but not stop the worker).
    expect(
      after.map((e) => JSON.stringify(e)),
      'no late event reached the log',
    ).to.deep.equal(before.map((e) => JSON.stringify(e)));
    // Refused at its first append, the woken worker sent the model nothing new: at most the attempts
    // it had recorded as requested before the pause (one may not have left the process yet). Without
    // fencing it would go on with the job's next calls, which its successor had already made.
    const modelAfter = await model.stats();
    const pausedId = workerIdOf(a);
    const inFlight = inFlightAtTakeover(after, pausedId).map((k) => `paused/${k}`);
    const sentAfterWaking = Object.keys(modelAfter.requestsByCallKey).filter(
      (k) => modelAfter.requestsByCallKey[k] !== (modelBefore.requestsByCallKey[k] ?? 0),
    );
    expect(
      sentAfterWaking.filter((k) => !inFlight.includes(k)),
      'calls the paused worker made after waking',
    ).to.deep.equal([]);
    expect(modelAfter.requests - modelBefore.requests).to.equal(sentAfterWaking.length);
    expect(a.lines.filter((l) => / lost to another worker /.test(l)).length, 'jobs the paused worker lost').to.be.greaterThan(0);
    expect(
      a.lines.filter((l) => l.includes(`paused ${heldJob} succeeded`)),
      'the paused worker finished the job it lost',
    ).to.deep.equal([]);
    expectNoLoggedCallRepeated(after, 'paused', modelAfter.completedByCallKey);
    const claims = after.filter((e) => e.type === 'JobClaimed' && e.jobId === heldJob);
    expect(claims.map((e) => (e.data as { worker: string }).worker).length).to.equal(2);
    expect(b.lines.some((l) => l.includes(`took paused ${heldJob}`))).to.equal(true);

    const rebuilt = await runEvalogHere(['rebuild', 'paused', '--nats', nats.url, '--out', 'paused-rebuilt'], { cwd: tmp.dir });
    expect(rebuilt.code, rebuilt.stderr).to.equal(0);
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json']) {
      expect(await readFile(join(tmp.dir, 'paused-rebuilt', f), 'utf8'), f).to.equal(await readFile(join(tmp.dir, 'runs/paused', f), 'utf8'));
    }
    const calm = await runEvalog(['run', 'smoke', '--out', 'runs/calm5', '--repetitions', String(reps), '--concurrency', '8', ...MODEL], { cwd: tmp.dir, env });
    expect(calm.code, calm.stderr).to.equal(0);
    await expectSameOutputs(join(tmp.dir, 'runs/paused'), join(tmp.dir, 'runs/calm5'));
  });
});

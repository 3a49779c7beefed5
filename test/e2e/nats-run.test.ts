import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import type { StoredEvent } from '../../src/events/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { collect, readJsonl, runEvalog, runEvalogHere, startEvalog, tempDir, withoutWallClock } from '../support/cli.js';
import { startMockServer, type MockServerProcess } from '../support/mock-server.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';
import { noLatency, noSeconds, readJson, type SummaryFile, type UsageFile } from '../support/outputs.js';

type Json = Record<string, unknown>;
const json = readJson;

/** A run's events with what only wall clock and run id make differ taken out. */
async function normalisedEvents(url: string, runId: string): Promise<string[]> {
  const log = await JetStreamEventLog.connect({ servers: url });
  const out: string[] = [];
  for await (const e of log.read(runId)) out.push(normalise(e, runId));
  await log.close();
  return out.sort();
}
function normalise(e: StoredEvent, runId: string): string {
  const data = { ...(e.data as Json) };
  delete data.latencyMs;
  if (e.type === 'RunStarted') delete data.provenance;
  return JSON.stringify({ id: e.id.slice(runId.length), type: e.type, actor: e.actor, data });
}

/** Type, job and JetStream storage time (ms) of each event of a run. */
async function storedTimes(url: string, runId: string): Promise<{ type: string; jobId: string | undefined; time: number }[]> {
  const log = await JetStreamEventLog.connect({ servers: url });
  try {
    const jsm = await jetstreamManager(log.nc);
    const out: { type: string; jobId: string | undefined; time: number }[] = [];
    for await (const e of log.read(runId)) {
      const m = await jsm.streams.getMessage('EVALOG', { seq: e.seq });
      out.push({ type: e.type, jobId: e.jobId, time: m!.time.getTime() });
    }
    return out;
  } finally {
    await log.close();
  }
}

describe('runs on the JetStream log (real nats-server, child processes)', function () {
  this.timeout(300_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let nats: NatsServerHandle;
  let model: MockServerProcess;

  before(async () => {
    tmp = await tempDir();
    nats = await startNatsServer();
    model = await startMockServer(['--latency-ms', '20-60'], tmp.dir);
  });
  after(async () => {
    await model?.stop();
    await nats?.stop();
    await tmp.cleanup();
  });

  it('gives the same rows, summary and usage as the embedded log, and rebuild from JetStream matches the live files', async () => {
    const a = await runEvalog(['run', 'smoke', '--out', 'runs/embedded'], { cwd: tmp.dir });
    expect(a.code, a.stderr).to.equal(0);
    const b = await runEvalog(['run', 'smoke', '--out', 'runs/onnats', '--nats', nats.url], { cwd: tmp.dir });
    expect(b.code, b.stderr).to.equal(0);
    expect(b.stderr).to.match(/NATS JetStream log/);
    const dirA = join(tmp.dir, 'runs/embedded');
    const dirB = join(tmp.dir, 'runs/onnats');
    expect((await readJsonl(join(dirB, 'rows.jsonl'))).map(withoutWallClock)).to.deep.equal((await readJsonl(join(dirA, 'rows.jsonl'))).map(withoutWallClock));
    expect(noSeconds(await json<SummaryFile>(join(dirB, 'summary.json')))).to.deep.equal(noSeconds(await json<SummaryFile>(join(dirA, 'summary.json'))));
    expect(noLatency(await json<UsageFile>(join(dirB, 'usage.json')))).to.deep.equal(noLatency(await json<UsageFile>(join(dirA, 'usage.json'))));

    const r = await runEvalogHere(['rebuild', 'onnats', '--nats', nats.url, '--out', 'rebuilt-nats'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    for (const f of ['rows.jsonl', 'summary.json', 'usage.json', 'run.json']) {
      const live = await readFile(join(dirB, f));
      expect((await readFile(join(tmp.dir, 'rebuilt-nats', f))).equals(live), f).to.equal(true);
    }
    const replay = await runEvalogHere(['replay', 'onnats', '--nats', nats.url], { cwd: tmp.dir });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    const runs = await runEvalogHere(['runs', '--nats', nats.url, '--json'], { cwd: tmp.dir });
    expect(runs.stdout).to.match(/"runId":"onnats".*"status":"completed"/);
  });

  it('a nats-server killed and restarted mid-run: the run completes with exactly the events of an undisturbed run', async () => {
    const env = { EVALOG_BASE_URL: model.url };
    const args = ['--repetitions', '2', '--model', 'evalog-scripted', '--nats', nats.url];
    const calm = await runEvalog(['run', 'smoke', '--out', 'runs/calm', ...args], { cwd: tmp.dir, env });
    expect(calm.code, calm.stderr).to.equal(0);

    const child = startEvalog(['run', 'smoke', '--out', 'runs/stormy', '--verbose', ...args], { cwd: tmp.dir, env });
    let restarted: Promise<void> | null = null;
    // Wall-clock marks of the outage: the server was dead after `deadAt` and back from `backAt`.
    let deadAt = 0;
    let backAt = 0;
    child.stderr!.on('data', (d: Buffer) => {
      if (!restarted && /^job /m.test(d.toString())) {
        restarted = (async () => {
          await nats.kill('SIGKILL');
          deadAt = Date.now();
          await new Promise((r) => setTimeout(r, 1500));
          backAt = Date.now();
          await nats.restart();
        })();
      }
    });
    const stormy = await collect(child);
    await restarted;
    expect(restarted, 'the server was restarted during the run').to.not.equal(null);
    expect(stormy.code, stormy.stderr).to.equal(0);
    // The server died mid-run: the stream stored events of the run before the kill and after the
    // restart (by their JetStream timestamps), none while it was down, and the run's end only after.
    const stored = await storedTimes(nats.url, 'stormy');
    expect(stored.filter((s) => s.time <= deadAt).length, 'events stored before the kill').to.be.greaterThan(0);
    expect(stored.filter((s) => s.time >= backAt).length, 'events stored after the restart').to.be.greaterThan(0);
    expect(
      stored.filter((s) => s.time > deadAt && s.time < backAt),
      'events stored while the server was dead',
    ).to.deep.equal([]);
    expect(stored.find((s) => s.type === 'RunCompleted')!.time, 'the run completed after the restart').to.be.at.least(backAt);
    const spanning = stored
      .filter((s) => s.type === 'JobStarted' && s.time <= deadAt)
      .filter((s) => stored.some((e) => e.jobId === s.jobId && e.type === 'JobSucceeded' && e.time >= backAt));
    expect(spanning.length, 'a job that started before the kill and ended after the restart').to.be.greaterThan(0);
    const expected = await normalisedEvents(nats.url, 'calm');
    const actual = await normalisedEvents(nats.url, 'stormy');
    expect(actual.length).to.equal(expected.length);
    expect(actual).to.deep.equal(expected);
    const rows = (await readJsonl(join(tmp.dir, 'runs/stormy/rows.jsonl'))).map(withoutWallClock);
    expect(rows).to.deep.equal((await readJsonl(join(tmp.dir, 'runs/calm/rows.jsonl'))).map(withoutWallClock));
  });
});

// The JetStream log through a nats-server that is SIGKILLed and restarted on the same store dir:
// appends in flight retry until acknowledged, and a subscription resumes after the last
// delivered seq, with nothing lost and nothing repeated.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { AppendResult } from '../../src/log/index.js';
import type { StoredEvent } from '../../src/events/index.js';
import { JetStreamEventLog } from '../../src/log/jetstream/index.js';
import { jobEvents, uniqueRunId } from '../support/events.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('JetStream log: server killed and restarted', function () {
  this.timeout(120_000);
  let server: NatsServerHandle;
  let log: JetStreamEventLog;
  beforeEach(async function () {
    server = await startNatsServer();
    if (!server.storeDir) this.skip(); // an external NATS_URL server cannot be killed from here
    const tag = randomBytes(3).toString('hex');
    log = await JetStreamEventLog.connect({ servers: server.url, streamName: `R${tag}`, subjectPrefix: `r${tag}`, blobBucket: `b${tag}` });
  });
  afterEach(async () => {
    await log?.close();
    await server?.stop();
  });

  async function readAll(runId: string): Promise<StoredEvent[]> {
    const out: StoredEvent[] = [];
    for await (const e of log.read(runId)) out.push(e);
    return out;
  }

  // Small batches: the kill lands at some moment of a loop that sleeps now and then, so appends
  // also start while the server is down. Large batches: the kill is fired right after an append
  // was issued, so it lands with a full window of publishes in flight.
  for (const [batch, killAtCall] of [
    [7, -1],
    [400, 3],
  ] as const) {
    it(`keeps every event exactly once, in order, when the server dies under an append loop (batches of ${batch})`, async () => {
      const runId = uniqueRunId();
      const jobs = [0, 1, 2].map((j) => jobEvents(runId, 1000, `case-${j}:a:1`));
      const interleaved = jobs[0]!.flatMap((_, n) => jobs.map((events) => events[n]!));
      const results: AppendResult[] = [];
      let calls = 0;
      let crash: Promise<void> | undefined;
      const killAndRestart = async () => {
        await server.kill('SIGKILL');
        await sleep(700);
        await server.restart();
      };
      const writer = (async () => {
        for (let i = 0; i < interleaved.length; i += batch) {
          const appended = log.append(interleaved.slice(i, i + batch));
          if (calls === killAtCall)
            await new Promise<void>((r) =>
              setImmediate(() => {
                crash = killAndRestart();
                r();
              }),
            );
          results.push(...(await appended));
          calls += 1;
          if (calls % 4 === 0) await sleep(5);
        }
      })();
      if (killAtCall < 0) {
        await sleep(150);
        crash = killAndRestart();
      }
      const callsAtKill = calls;
      await writer;
      await crash;
      expect(callsAtKill, 'the server died while the loop ran').to.be.lessThan(calls);
      if (killAtCall >= 0) expect(log.publishRetries, 'publishes in flight were retried').to.be.greaterThan(0);
      expect(results.map((r) => r.id)).to.deep.equal(interleaved.map((e) => e.id));
      expect(results.every((r) => !r.duplicate)).to.equal(true);
      const stored = await readAll(runId);
      expect(stored.map((e) => e.id)).to.deep.equal(interleaved.map((e) => e.id));
      expect(stored.map((e) => e.seq)).to.deep.equal(results.map((r) => r.seq));
    });
  }

  it('resumes a subscription after the last delivered seq across a restart', async () => {
    const runId = uniqueRunId();
    const before = jobEvents(runId, 100);
    const after = jobEvents(runId, 100, 'case-1:a:1', 101);
    await log.append(before);
    const ac = new AbortController();
    const received: StoredEvent[] = [];
    const done = (async () => {
      for await (const e of log.subscribe(runId, { signal: ac.signal })) {
        received.push(e);
        if (received.length === 200) ac.abort();
      }
    })();
    while (received.length < 100) await sleep(10);
    await server.kill('SIGKILL');
    await sleep(300);
    await server.restart();
    for (let i = 0; i < after.length; i += 10) await log.append(after.slice(i, i + 10));
    const timer = setTimeout(() => ac.abort(), 30_000);
    await done;
    clearTimeout(timer);
    expect(received.map((e) => e.id)).to.deep.equal([...before, ...after].map((e) => e.id));
  });

  it('keeps a subscription exact while appends run across a restart', async () => {
    const runId = uniqueRunId();
    const events = jobEvents(runId, 2000);
    const ac = new AbortController();
    const received: StoredEvent[] = [];
    const done = (async () => {
      for await (const e of log.subscribe(runId, { signal: ac.signal })) {
        received.push(e);
        if (received.length === events.length) ac.abort();
      }
    })();
    const writer = (async () => {
      for (let i = 0; i < events.length; i += 20) {
        await log.append(events.slice(i, i + 20));
        await sleep(1);
      }
    })();
    await sleep(100);
    await server.kill('SIGKILL');
    await sleep(300);
    await server.restart();
    await writer;
    const timer = setTimeout(() => ac.abort(), 30_000);
    await done;
    clearTimeout(timer);
    expect(received.map((e) => e.id)).to.deep.equal(events.map((e) => e.id));
    const seqs = received.map((e) => e.seq);
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).to.be.greaterThan(seqs[i - 1]!);
  });
});

// Dedup of the JetStream log beyond the contract: across reconnects and server restarts, after
// the stream's duplicate window has passed, and between two logs (two connections) on one stream.
import { randomBytes } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { expect } from 'chai';
import { encodeEvent } from '../../src/events/index.js';
import type { StoredEvent } from '../../src/events/index.js';
import { JetStreamEventLog, type JetStreamLogOptions } from '../../src/log/jetstream/index.js';
import { jobEvents, runStarted, uniqueRunId } from '../support/events.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until the log's client has reconnected (a PING is answered). */
async function untilConnected(log: JetStreamEventLog): Promise<void> {
  for (;;) {
    try {
      await Promise.race([log.nc.flush(), sleep(500).then(() => Promise.reject(new Error('no PONG')))]);
      return;
    } catch {
      await sleep(50);
    }
  }
}

describe('JetStream log: dedup', function () {
  this.timeout(60_000);
  let server: NatsServerHandle;
  let options: JetStreamLogOptions;
  const logs: JetStreamEventLog[] = [];
  const open = async (extra: Partial<JetStreamLogOptions> = {}) => {
    const log = await JetStreamEventLog.connect({ ...options, ...extra });
    logs.push(log);
    return log;
  };
  before(async () => {
    server = await startNatsServer();
  });
  after(async () => server?.stop());
  beforeEach(() => {
    const tag = randomBytes(3).toString('hex');
    options = { servers: server.url, streamName: `D${tag}`, subjectPrefix: `d${tag}`, blobBucket: `b${tag}` };
  });
  afterEach(async () => {
    for (const log of logs.splice(0)) await log.close();
  });

  async function ids(log: JetStreamEventLog, runId: string): Promise<string[]> {
    const out: StoredEvent[] = [];
    for await (const e of log.read(runId)) out.push(e);
    return out.map((e) => e.id);
  }

  it('reports a re-append after a reconnect as duplicates with the original seqs', async () => {
    const log = await open();
    const runId = uniqueRunId();
    const events = [runStarted(runId), ...jobEvents(runId, 20)];
    const first = await log.append(events);
    await log.nc.reconnect();
    const again = await log.append(events);
    expect(again).to.deep.equal(first.map((r) => ({ ...r, duplicate: true })));
    expect(await ids(log, runId)).to.deep.equal(events.map((e) => e.id));
  });

  it('still drops a duplicate after the server restarted (its dedup window is rebuilt from the store)', async function () {
    if (!server.storeDir) this.skip(); // an external NATS_URL server cannot be restarted from here
    const log = await open();
    const runId = uniqueRunId();
    const [event] = jobEvents(runId, 1);
    const [first] = await log.append([event!]);
    await server.kill('SIGKILL');
    await server.restart();
    await untilConnected(log);
    // A raw publish bypasses this log's known-id index: the answer is the server's own.
    const ack = await jetstream(log.nc).publish(log.subjects.event(runId, event!.jobId), encodeEvent(event!), { msgID: event!.id });
    expect(ack).to.include({ duplicate: true, seq: first!.seq });
    const fresh = await open();
    expect(await fresh.append([event!])).to.deep.equal([{ ...first, duplicate: true }]);
  });

  it('reports duplicates after the duplicate window, from the same log and from a new one', async () => {
    const windowMs = 400;
    const log = await open({ duplicateWindowMs: windowMs });
    const runId = uniqueRunId();
    const events = jobEvents(runId, 10);
    const first = await log.append(events);
    await sleep(windowMs * 2);
    expect(await log.append(events)).to.deep.equal(first.map((r) => ({ ...r, duplicate: true })));
    const other = await open({ duplicateWindowMs: windowMs });
    expect(await other.append(events.slice(3, 5))).to.deep.equal(first.slice(3, 5).map((r) => ({ ...r, duplicate: true })));
    expect(await ids(log, runId)).to.deep.equal(events.map((e) => e.id));
  });

  it('sees an id that another log stored after its last scan, once the window has passed', async () => {
    const windowMs = 400;
    const a = await open({ duplicateWindowMs: windowMs });
    const b = await open({ duplicateWindowMs: windowMs });
    const runId = uniqueRunId();
    const [x, y] = jobEvents(runId, 2);
    await a.append([x!]); // a has scanned the run now
    const [fromB] = await b.append([y!]);
    await sleep(windowMs * 2); // the server no longer remembers y's id
    expect(await a.append([y!])).to.deep.equal([{ ...fromB, duplicate: true }]);
    expect(await ids(a, runId)).to.deep.equal([x!.id, y!.id]);
  });

  it('stores events that two logs append at the same time exactly once', async () => {
    const [a, b] = [await open(), await open()];
    const runId = uniqueRunId();
    const events = jobEvents(runId, 500);
    const [ra, rb] = await Promise.all([a.append(events), b.append(events)]);
    for (let i = 0; i < events.length; i += 1) {
      expect(ra[i]!.seq).to.equal(rb[i]!.seq);
      expect(ra[i]!.duplicate).to.not.equal(rb[i]!.duplicate);
    }
    expect(await ids(a, runId)).to.deep.equal(events.map((e) => e.id));
  });
});

// Blobs of the JetStream log through a nats-server that is SIGKILLed and restarted on the same
// store dir: puts and gets issued before, during and after the outage retry until they succeed,
// and every blob round-trips. When the server stays away, a request gives up at the log's retry
// deadline with a JetStreamRequestError that names it; a refusal fails at once.
import { createHash, randomBytes } from 'node:crypto';
import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import { expect } from 'chai';
import { JetStreamEventLog, JetStreamRequestError, type JetStreamLogOptions } from '../../src/log/jetstream/index.js';
import { uniqueRunId } from '../support/events.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('JetStream log: blobs while the server is killed and restarted', function () {
  this.timeout(120_000);
  let server: NatsServerHandle;
  let options: JetStreamLogOptions;
  let log: JetStreamEventLog;
  beforeEach(async function () {
    server = await startNatsServer();
    if (!server.storeDir) this.skip(); // an external NATS_URL server cannot be killed from here
    const tag = randomBytes(3).toString('hex');
    options = { servers: server.url, streamName: `BR${tag}`, subjectPrefix: `br${tag}`, blobBucket: `br${tag}` };
    log = await JetStreamEventLog.connect(options);
  });
  afterEach(async () => {
    await log?.close();
    await server?.stop();
  });

  it('puts and gets every blob, small (KV) and large (object store), across a restart', async () => {
    const runId = uniqueRunId();
    const blobs = log.blobs(runId);
    const stored = new Map<string, Buffer>();
    let phase: 'before' | 'down' | 'after' = 'before';
    let afterOps = 0;
    let inFlight = 0;
    const failures: unknown[] = [];
    // Puts `bytes`, then reads back the `pick`-th blob stored so far.
    const roundTrip = async (bytes: Buffer, pick: number) => {
      expect(await blobs.put(bytes)).to.equal(sha256(bytes));
      stored.set(sha256(bytes), bytes);
      const hashes = [...stored.keys()];
      const check = hashes[pick % hashes.length]!;
      expect(Buffer.from(await blobs.get(check)).equals(stored.get(check)!), `get ${check}`).to.equal(true);
      expect(await blobs.has(check)).to.equal(true);
    };

    // Each worker alternates puts with gets and has() of blobs stored earlier, back to back (so the
    // kill lands with requests in flight), until it has done enough work after the restart. One in
    // 40 blobs of two workers is larger than a KV message.
    const worker = async (w: number) => {
      for (let i = 0; phase !== 'after' || afterOps < 400; i += 1) {
        if (phase === 'after') afterOps += 1;
        const large = i % 40 === 39 && w < 2;
        inFlight += 1;
        try {
          await roundTrip(randomBytes(large ? 1_500_000 + i : 16 + ((i * 997 + w * 131) % 20_000)), i * 7919 + w);
        } catch (e) {
          failures.push(e);
          return;
        } finally {
          inFlight -= 1;
        }
      }
    };
    const workers = Promise.all([0, 1, 2, 3, 4, 5].map(worker));
    while (stored.size < 50 && failures.length === 0) await sleep(5);
    const inFlightAtKill = inFlight;
    await server.kill('SIGKILL');
    phase = 'down';
    // Requests issued while the server is gone, into a client that is reconnecting.
    const whileDown = Array.from({ length: 20 }, (_, k) => roundTrip(randomBytes(100 + k), k).catch((e) => void failures.push(e)));
    await sleep(1_500);
    await server.restart();
    phase = 'after';
    await Promise.all([workers, ...whileDown]);

    expect(failures.map(String)).to.deep.equal([]);
    expect(inFlightAtKill, 'operations were in flight at the kill').to.be.greaterThan(0);
    expect(
      [...stored.values()].some((b) => b.length > 1_000_000),
      'large blobs were stored',
    ).to.equal(true);
    // A fresh log (new connection, nothing cached) finds every blob with its bytes.
    const fresh = await JetStreamEventLog.connect(options);
    try {
      for (const [hash, bytes] of stored) {
        expect(Buffer.from(await fresh.blobs(runId).get(hash)).equals(bytes), hash).to.equal(true);
      }
    } finally {
      await fresh.close();
    }
  });

  it('gives up at the retry deadline with a JetStreamRequestError naming the request', async () => {
    await log.close();
    log = await JetStreamEventLog.connect({ ...options, appendTimeoutMs: 1_500 });
    const blobs = log.blobs(uniqueRunId());
    const hash = await blobs.put(Buffer.from('before the outage'));
    await server.kill('SIGKILL');
    const t0 = performance.now();
    const put = await rejection(blobs.put(Buffer.from('during the outage')));
    const get = await rejection(blobs.get(hash));
    const elapsed = performance.now() - t0;
    for (const [e, what] of [
      [put, /^storing blob /],
      [get, /^reading blob /],
    ] as const) {
      expect(e).to.be.instanceOf(JetStreamRequestError);
      expect((e as JetStreamRequestError).retriedMs).to.equal(1_500);
      expect((e as JetStreamRequestError).operation).to.match(what);
      expect((e as Error).message).to.match(/still failed after 1500 ms of retries/);
    }
    // The configured 1.5 s deadline, not the 60 s default: far below the default even on a loaded machine.
    expect(elapsed, 'each request ends at its deadline, not at the default one').to.be.lessThan(30_000);
    expect((await rejection(log.runs())) as Error).to.be.instanceOf(JetStreamRequestError);
  });

  it('fails at once, without retries, when the server refuses the request', async () => {
    // A stream that already captures the KV bucket's subjects makes creating the bucket fail.
    const jsm = await jetstreamManager(log.nc);
    await jsm.streams.add({ name: `X${options.blobBucket}`, subjects: [`$KV.${options.blobBucket}.>`], storage: StorageType.File });
    const e = await rejection(log.blobs(uniqueRunId()).put(Buffer.from('refused')));
    expect(e).to.be.instanceOf(JetStreamRequestError);
    // No retries (retriedMs null) is what "at once" means; a wall-clock bound would only add flakiness.
    expect((e as JetStreamRequestError).retriedMs).to.equal(null);
    expect((e as Error).message).to.match(/^opening KV bucket .* failed: /);
  });
});

// Edges of the JetStream log that the shared contract does not reach: subject tokens, the
// server's payload limit, blobs past the KV limit, corrupted blobs, a foreign stream, close().
import { createHash, randomBytes } from 'node:crypto';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { expect } from 'chai';
import type { EvalogEvent } from '../../src/events/index.js';
import { LogClosedError, LogCorruptedError } from '../../src/log/index.js';
import { InvalidSubjectTokenError, JetStreamEventLog, StreamConfigError, type JetStreamLogOptions } from '../../src/log/jetstream/index.js';
import { jobEvents, toolCalled, uniqueRunId } from '../support/events.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats-server.js';

async function rejection(p: Promise<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('JetStream log: edges', function () {
  this.timeout(30_000);
  let server: NatsServerHandle;
  let options: JetStreamLogOptions;
  let log: JetStreamEventLog;
  before(async () => {
    server = await startNatsServer();
  });
  after(async () => server?.stop());
  beforeEach(async () => {
    const tag = randomBytes(3).toString('hex');
    options = { servers: server.url, streamName: `E${tag}`, subjectPrefix: `e${tag}`, blobBucket: `b${tag}` };
    log = await JetStreamEventLog.connect(options);
  });
  afterEach(async () => log?.close());

  it('refuses run ids that are not one subject token, before writing anything', async () => {
    for (const bad of ['*', '>', 'a.b', 'a b', '', '-x']) {
      expect(await rejection(log.read(bad)[Symbol.asyncIterator]().next())).to.be.instanceOf(InvalidSubjectTokenError);
      expect(await rejection(() => log.blobs(bad))).to.be.instanceOf(InvalidSubjectTokenError);
    }
    const runId = uniqueRunId();
    const good = jobEvents(runId, 1)[0]!;
    const bad = { ...toolCalled(runId, 'case-1:a:1', 2), jobId: 'case.1' } as EvalogEvent;
    expect(await rejection(log.append([good, bad]))).to.be.instanceOf(InvalidSubjectTokenError);
    expect(await rejection(log.append([{ ...good, runId: 'x.>' } as EvalogEvent]))).to.be.instanceOf(InvalidSubjectTokenError);
    const stored = [];
    for await (const e of log.read(runId)) stored.push(e);
    expect(stored).to.deep.equal([]);
  });

  it('stores an event over the max_payload as a blob of its run, in its place in the stream, and reads it back whole', async () => {
    const runId = uniqueRunId();
    const [first, second] = jobEvents(runId, 2);
    const huge = toolCalled(runId, 'case-1:a:1', 3, 2 * 1024 * 1024);
    const [, , stored] = await log.append([first!, second!, huge]);
    expect(stored).to.include({ seq: stored!.seq, duplicate: false });
    // The stream holds a pointer (the magic and the sha256 of the encoded event) where the event goes.
    const raw = await log.nc.request(`$JS.API.STREAM.MSG.GET.${options.streamName}`, JSON.stringify({ seq: stored!.seq }));
    const message = JSON.parse(new TextDecoder().decode(raw.data)) as { message: { data: string } };
    const pointer = Buffer.from(message.message.data, 'base64');
    expect(pointer.subarray(0, 8).toString('latin1')).to.equal('EVSPILL1');
    expect(pointer.length).to.equal(40);
    const read = [];
    for await (const e of log.read(runId)) read.push(e);
    expect(read.map(({ seq: _s, ...e }) => e)).to.deep.equal([first, second, huge]);
    expect(await log.append([huge])).to.deep.equal([{ id: huge.id, seq: stored!.seq, duplicate: true }]);
    // Its blob gone, the read names the stream position instead of inventing an event.
    const kv = await new Kvm(log.nc).open(options.blobBucket!);
    const objects = await new Objm(log.nc).open(options.blobBucket!);
    const hash = pointer.subarray(8).toString('hex');
    await kv.purge(`${runId}.${hash}`).catch(() => undefined);
    await objects.delete(`${runId}.${hash}`).catch(() => undefined);
    const fresh = await JetStreamEventLog.connect(options);
    try {
      const error = await rejection(async () => {
        for await (const _ of fresh.read(runId));
      });
      expect(error).to.be.instanceOf(LogCorruptedError);
      expect((error as Error).message)
        .to.include(`seq ${stored!.seq}`)
        .and.include(`blob ${hash}`);
    } finally {
      await fresh.close();
    }
  });

  it('keeps blobs larger than one message in the object store', async () => {
    const runId = uniqueRunId();
    const blobs = log.blobs(runId);
    const bytes = randomBytes(3 * 1024 * 1024);
    const hash = await blobs.put(bytes);
    expect(hash).to.equal(createHash('sha256').update(bytes).digest('hex'));
    expect(await blobs.put(bytes)).to.equal(hash);
    expect(await blobs.has(hash)).to.equal(true);
    expect(Buffer.from(await blobs.get(hash)).equals(bytes)).to.equal(true);
    expect(await log.blobs(uniqueRunId()).has(hash), 'blobs belong to their run').to.equal(false);
  });

  it('reports a blob whose bytes do not match its hash as corrupted', async () => {
    const runId = uniqueRunId();
    const hash = createHash('sha256').update('original').digest('hex');
    const kv = await new Kvm(log.nc).create(options.blobBucket!);
    await kv.put(`${runId}.${hash}`, Buffer.from('tampered'));
    expect(await rejection(log.blobs(runId).get(hash))).to.be.instanceOf(LogCorruptedError);
  });

  it('a blob put finds its key stored already (by another writer, past the dedup window): it is stored, its first value kept', async () => {
    const runId = uniqueRunId();
    const bytes = Buffer.from('stored elsewhere');
    const hash = createHash('sha256').update(bytes).digest('hex');
    const kv = await new Kvm(log.nc).create(options.blobBucket!);
    // A plain put has no Nats-Msg-Id: the log's create meets "wrong last sequence", not a duplicate.
    const first = await kv.put(`${runId}.${hash}`, bytes);
    expect(await log.blobs(runId).put(bytes)).to.equal(hash);
    expect((await kv.get(`${runId}.${hash}`))!.revision, 'nothing stored again').to.equal(first);
    expect(Buffer.from(await log.blobs(runId).get(hash)).toString()).to.equal('stored elsewhere');
  });

  it('refuses a stream of that name that captures other subjects', async () => {
    const error = await rejection(JetStreamEventLog.connect({ ...options, subjectPrefix: 'other' }));
    expect(error).to.be.instanceOf(StreamConfigError);
  });

  it('shares a small publish window between concurrent appends without losing order', async () => {
    const narrow = await JetStreamEventLog.connect({ ...options, publishWindow: 3 });
    try {
      const runId = uniqueRunId();
      const callers = Array.from({ length: 8 }, (_, c) => jobEvents(runId, 40, `case-${c}:a:1`));
      const results = await Promise.all(callers.map((events, c) => narrow.append(c % 2 ? events : events.slice(0, 5))));
      for (const r of results) for (let i = 1; i < r.length; i += 1) expect(r[i]!.seq).to.be.greaterThan(r[i - 1]!.seq);
      const stored = [];
      for await (const e of narrow.read(runId)) stored.push(e);
      expect(stored).to.have.length(4 * 40 + 4 * 5);
    } finally {
      await narrow.close();
    }
  });

  it('lists no runs in an empty stream, and refuses reads and appends after close', async () => {
    expect(await log.runs()).to.deep.equal([]);
    await log.close();
    await log.close();
    expect(await rejection(log.append(jobEvents(uniqueRunId(), 1)))).to.be.instanceOf(LogClosedError);
    expect(await rejection(log.read(uniqueRunId())[Symbol.asyncIterator]().next())).to.be.instanceOf(LogClosedError);
    expect(await rejection(log.runs())).to.be.instanceOf(LogClosedError);
  });
});

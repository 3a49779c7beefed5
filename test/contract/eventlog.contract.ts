// The one contract every EventLog must meet (embedded file log, JetStream, in-memory). Tests use only the
// EventLog interface and never assume how seq is numbered beyond "strictly increasing in append
// order", because JetStream's seq is the stream-wide position while the file log's is per run.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RUN_SCOPE, type EvalogEvent, type StoredEvent } from '../../src/events/index.js';
import { BlobNotFoundError, FencedOffError, LogClosedError, type EventLog, type SubscribeOptions } from '../../src/log/index.js';
import { jobEvents, jobStarted, runCompleted, runStarted, toolCalled, uniqueRunId } from '../support/events.js';

/** What a contract factory hands over: a fresh log, a way to reopen its storage, and a cleanup. */
export interface ContractSubject {
  log: EventLog;
  /** Opens a new log on the same storage (the test closes the first log before). */
  reopen?: () => Promise<EventLog>;
  /** Closes the log if still open and removes its storage. */
  cleanup: () => Promise<void>;
}

const ids = (events: readonly { id: string }[]) => events.map((e) => e.id);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function readAll(log: EventLog, runId: string, from?: number): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId, from === undefined ? {} : { from })) out.push(e);
  return out;
}

/** Subscribes until `count` events arrived, then keeps listening `graceMs` to catch extras. */
async function subscribeCollect(log: EventLog, runId: string, options: Omit<SubscribeOptions, 'signal'>, count: number, graceMs = 150, timeoutMs = 10_000) {
  const ac = new AbortController();
  const received: StoredEvent[] = [];
  const deadline = setTimeout(() => ac.abort(), timeoutMs);
  let grace: NodeJS.Timeout | undefined;
  let reached!: () => void;
  const reachedCount = new Promise<void>((r) => (reached = r));
  const done = (async () => {
    for await (const e of log.subscribe(runId, { ...options, signal: ac.signal })) {
      received.push(e);
      if (received.length === count) {
        reached();
        grace = setTimeout(() => ac.abort(), graceMs);
      }
    }
  })().finally(() => {
    clearTimeout(deadline);
    clearTimeout(grace);
    reached();
  });
  return { received, reachedCount, done, abort: () => ac.abort() };
}

/** Declares the EventLog contract suite for one implementation. */
export function eventLogContract(name: string, factory: () => Promise<ContractSubject>): void {
  describe(`EventLog contract: ${name}`, function () {
    this.timeout(30_000);
    let subject: ContractSubject;
    let log: EventLog;
    beforeEach(async () => {
      subject = await factory();
      log = subject.log;
    });
    afterEach(async () => subject.cleanup());

    describe('append', () => {
      it('assigns strictly increasing seqs in append order and reads them back in that order', async () => {
        const runId = uniqueRunId();
        const events = [runStarted(runId), ...jobEvents(runId, 9)];
        const r1 = await log.append(events.slice(0, 4));
        const r2 = await log.append(events.slice(4));
        const results = [...r1, ...r2];
        expect(ids(results)).to.deep.equal(ids(events));
        expect(results.every((r) => !r.duplicate)).to.equal(true);
        for (let i = 1; i < results.length; i += 1) expect(results[i]!.seq).to.be.greaterThan(results[i - 1]!.seq);
        const stored = await readAll(log, runId);
        expect(stored).to.deep.equal(events.map((e, i) => ({ ...e, seq: results[i]!.seq })));
      });

      it('returns [] for an empty batch', async () => {
        expect(await log.append([])).to.deep.equal([]);
      });

      it('stores a re-appended id once, across batches, reporting the existing seq', async () => {
        const runId = uniqueRunId();
        const events = jobEvents(runId, 3);
        const first = await log.append(events);
        const again = await log.append([events[1]!, toolCalled(runId, 'case-1:a:1', 4)]);
        expect(again[0]).to.deep.equal({ id: events[1]!.id, seq: first[1]!.seq, duplicate: true });
        expect(again[1]!.duplicate).to.equal(false);
        expect(again[1]!.seq).to.be.greaterThan(first[2]!.seq);
        expect(ids(await readAll(log, runId))).to.deep.equal([...ids(events), again[1]!.id]);
      });

      it('stores a repeated id within one batch once', async () => {
        const runId = uniqueRunId();
        const [a, b] = jobEvents(runId, 2);
        const results = await log.append([a!, b!, a!, b!]);
        expect(results.map((r) => r.duplicate)).to.deep.equal([false, false, true, true]);
        expect(results[2]!.seq).to.equal(results[0]!.seq);
        expect(results[3]!.seq).to.equal(results[1]!.seq);
        expect(ids(await readAll(log, runId))).to.deep.equal([a!.id, b!.id]);
      });

      it('stores an id appended by concurrent callers exactly once', async () => {
        const runId = uniqueRunId();
        const events = jobEvents(runId, 5);
        const all = await Promise.all(Array.from({ length: 10 }, () => log.append(events)));
        for (let i = 0; i < events.length; i += 1) {
          const forId = all.map((r) => r[i]!);
          expect(forId.filter((r) => !r.duplicate)).to.have.length(1);
          expect(new Set(forId.map((r) => r.seq)).size).to.equal(1);
        }
        expect(ids(await readAll(log, runId))).to.deep.equal(ids(events));
      });

      it('keeps every event of 20 concurrent callers × 50 events exactly once, each caller in order', async () => {
        const runId = uniqueRunId();
        const callers = Array.from({ length: 20 }, (_, c) => jobEvents(runId, 50, `case-${c}:a:1`));
        const results = await Promise.all(
          callers.map(async (events, c) => {
            const out = [];
            const size = (c % 5) + 1;
            for (let i = 0; i < events.length; i += size) out.push(...(await log.append(events.slice(i, i + size))));
            return out;
          }),
        );
        const seqs = results.flat().map((r) => r.seq);
        expect(results.flat().every((r) => !r.duplicate)).to.equal(true);
        expect(new Set(seqs).size).to.equal(1000);
        for (const r of results) for (let i = 1; i < r.length; i += 1) expect(r[i]!.seq).to.be.greaterThan(r[i - 1]!.seq);
        const stored = await readAll(log, runId);
        expect(stored).to.have.length(1000);
        expect(stored.map((e) => e.seq)).to.deep.equal([...seqs].sort((x, y) => x - y));
        const bySeq = new Map(results.flat().map((r) => [r.seq, r.id]));
        expect(stored.every((e) => bySeq.get(e.seq) === e.id)).to.equal(true);
      });

      it('splits a batch that spans several runs and answers in input order', async () => {
        const [r1, r2] = [uniqueRunId(), uniqueRunId()];
        const batch = [jobStarted(r1), jobStarted(r2), toolCalled(r1, undefined, 2), toolCalled(r2, undefined, 2)];
        const results = await log.append(batch);
        expect(ids(results)).to.deep.equal(ids(batch));
        expect(ids(await readAll(log, r1))).to.deep.equal([batch[0]!.id, batch[2]!.id]);
        expect(ids(await readAll(log, r2))).to.deep.equal([batch[1]!.id, batch[3]!.id]);
      });
    });

    describe('appendAfter (fenced)', () => {
      it('appends when the job ends at the fence, 0 meaning an empty job', async () => {
        const runId = uniqueRunId();
        const first = await log.appendAfter(jobStarted(runId, 'j:a:1', 1), { afterSeq: 0, writer: 'w1' });
        const second = await log.appendAfter(toolCalled(runId, 'j:a:1', 2), { afterSeq: first.seq, writer: 'w1' });
        expect(second.seq).to.be.greaterThan(first.seq);
        expect(ids(await readAll(log, runId))).to.deep.equal([`${runId}/j:a:1/1`, `${runId}/j:a:1/2`]);
      });

      it('refuses with FencedOffError and stores nothing once another writer moved the job on', async () => {
        const runId = uniqueRunId();
        const a = await log.appendAfter(jobStarted(runId, 'j:a:1', 1), { afterSeq: 0, writer: 'old' });
        // The new holder claims the job after event 1; the old writer still believes it ends at 1.
        const claim = await log.appendAfter(toolCalled(runId, 'j:a:1', 2), { afterSeq: a.seq, writer: 'new' });
        let refused: unknown;
        await log.appendAfter(toolCalled(runId, 'j:a:1', 3), { afterSeq: a.seq, writer: 'old' }).catch((e) => (refused = e));
        expect(refused).to.be.instanceOf(FencedOffError);
        expect((refused as FencedOffError).expectedSeq).to.equal(a.seq);
        // The same event id from the stale writer is refused too, not taken as a duplicate.
        await log.appendAfter(toolCalled(runId, 'j:a:1', 2, 8), { afterSeq: a.seq, writer: 'old' }).then(
          () => expect.fail('a stale writer must not pass as a duplicate'),
          (e) => expect(e).to.be.instanceOf(FencedOffError),
        );
        const stored = await readAll(log, runId);
        expect(stored.map((e) => e.seq)).to.deep.equal([a.seq, claim.seq]);
      });

      it('fences per job: another job and plain appends of other jobs do not move it', async () => {
        const runId = uniqueRunId();
        const a = await log.appendAfter(jobStarted(runId, 'j:a:1', 1), { afterSeq: 0, writer: 'w' });
        await log.append([jobStarted(runId, 'j:b:1', 1), runStarted(runId)]);
        const next = await log.appendAfter(toolCalled(runId, 'j:a:1', 2), { afterSeq: a.seq, writer: 'w' });
        expect(next.duplicate).to.equal(false);
        // A plain append to the fenced job does move it.
        await log.append([toolCalled(runId, 'j:a:1', 3)]);
        await log.appendAfter(toolCalled(runId, 'j:a:1', 4), { afterSeq: next.seq, writer: 'w' }).then(
          () => expect.fail('expected FencedOffError'),
          (e) => expect(e).to.be.instanceOf(FencedOffError),
        );
      });
    });

    describe('read', () => {
      it('reads one job, or the run-level events, with jobId', async () => {
        const runId = uniqueRunId();
        await log.append([runStarted(runId), jobStarted(runId, 'j:a:1', 1), jobStarted(runId, 'j:b:1', 1), toolCalled(runId, 'j:a:1', 2)]);
        const only = async (jobId: string) => {
          const out: string[] = [];
          for await (const e of log.read(runId, { jobId })) out.push(e.id);
          return out;
        };
        expect(await only('j:a:1')).to.deep.equal([`${runId}/j:a:1/1`, `${runId}/j:a:1/2`]);
        expect(await only('j:b:1')).to.deep.equal([`${runId}/j:b:1/1`]);
        expect(await only(RUN_SCOPE)).to.deep.equal([`${runId}/_run/1`]);
        expect(await only('j:c:1')).to.deep.equal([]);
      });

      it('reads from the middle (from is an inclusive seq)', async () => {
        const runId = uniqueRunId();
        const events = jobEvents(runId, 10);
        const results = await log.append(events);
        const tail = await readAll(log, runId, results[6]!.seq);
        expect(ids(tail)).to.deep.equal(ids(events.slice(6)));
        expect(tail.map((e) => e.seq)).to.deep.equal(results.slice(6).map((r) => r.seq));
        expect(await readAll(log, runId, results[9]!.seq + 1)).to.deep.equal([]);
      });

      it('yields nothing for an unknown run', async () => {
        expect(await readAll(log, uniqueRunId('unknown'))).to.deep.equal([]);
      });

      it('reads its own writes: an event is in every read started after its append resolved', async () => {
        // A restarted worker rebuilds itself from such a read; a missing last event made it act twice.
        const runId = uniqueRunId();
        const other = uniqueRunId('other');
        let stop = false;
        // Other jobs keep appending meanwhile, as they do in a run.
        const noise = (async () => {
          for (let n = 1; !stop; n++) await log.append([toolCalled(other, `case-${n % 4}:b:1`, n)]);
        })();
        try {
          const first = await log.append([jobStarted(runId)]);
          for (let n = 2; n <= 60; n++) {
            await log.append([toolCalled(runId, 'case-1:a:1', n)]);
            const got = await readAll(log, runId, first[0]!.seq);
            expect(got.length, `after append ${n}`).to.equal(n);
          }
        } finally {
          stop = true;
          await noise;
        }
      });
    });

    describe('subscribe', () => {
      it('catches up from the middle, then delivers later appends exactly once, in order', async () => {
        const runId = uniqueRunId();
        const before = jobEvents(runId, 10);
        const results = await log.append(before);
        const after = jobEvents(runId, 10, 'case-1:a:1', 11);
        const sub = await subscribeCollect(log, runId, { from: results[4]!.seq }, 16);
        while (sub.received.length < 6) await sleep(5);
        for (let i = 0; i < after.length; i += 2) await log.append(after.slice(i, i + 2));
        await sub.done;
        expect(ids(sub.received)).to.deep.equal(ids([...before.slice(4), ...after]));
        const seqs = sub.received.map((e) => e.seq);
        for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]).to.be.greaterThan(seqs[i - 1]!);
      });

      it('delivers a live append without waiting for a poll', async () => {
        const runId = uniqueRunId();
        await log.append([jobStarted(runId)]);
        const sub = await subscribeCollect(log, runId, {}, 2, 0);
        while (sub.received.length < 1) await sleep(2);
        const t0 = performance.now();
        await log.append([toolCalled(runId, undefined, 2)]);
        await sub.reachedCount;
        // Below JetStream's 5 s live-pull expiry (a missed delivery waits for the next pull), with room for a loaded machine.
        expect(performance.now() - t0).to.be.lessThan(4_000);
        sub.abort();
        await sub.done;
      });

      for (const [label, from, startAfter] of [
        ['undefined', undefined, 0],
        ['0', 0, 1],
        ['undefined', undefined, 7],
        ['0', 0, 20],
        ['undefined', undefined, 45],
      ] as const) {
        it(`loses and repeats nothing at the catch-up/live boundary (from ${label}, subscribing after ${startAfter} batches)`, async () => {
          const runId = uniqueRunId();
          const events = jobEvents(runId, 300);
          let batches = 0;
          let subscribed!: () => void;
          const subscribeNow = new Promise<void>((r) => (subscribed = r));
          const writer = (async () => {
            for (let i = 0, size = 1; i < events.length; i += size, size = (size % 7) + 1) {
              if (batches === startAfter) subscribed();
              await log.append(events.slice(i, i + size));
              batches += 1;
              if (batches % 3 === 0) await new Promise((r) => setImmediate(r));
            }
            subscribed();
          })();
          await subscribeNow;
          const subs = await Promise.all([
            subscribeCollect(log, runId, from === undefined ? {} : { from }, 300),
            subscribeCollect(log, runId, { from: 0 }, 300),
          ]);
          await writer;
          for (const sub of subs) {
            await sub.done;
            expect(ids(sub.received)).to.deep.equal(ids(events));
          }
        });
      }

      it('ends when the consumer breaks out, and the log still closes', async () => {
        const runId = uniqueRunId();
        await log.append(jobEvents(runId, 5));
        const got: StoredEvent[] = [];
        for await (const e of log.subscribe(runId)) {
          got.push(e);
          if (got.length === 2) break;
        }
        expect(got).to.have.length(2);
        await log.close();
      });

      it('ends when the signal aborts, without throwing', async () => {
        const runId = uniqueRunId();
        await log.append(jobEvents(runId, 2));
        const sub = await subscribeCollect(log, runId, {}, 2, 10_000);
        await sub.reachedCount;
        sub.abort();
        await sub.done;
        expect(sub.received).to.have.length(2);
      });

      it('ends active subscriptions on close; later appends throw LogClosedError', async () => {
        const runId = uniqueRunId();
        await log.append(jobEvents(runId, 3));
        const sub = await subscribeCollect(log, runId, {}, 3, 60_000, 60_000);
        await sub.reachedCount;
        await log.close();
        await Promise.race([
          sub.done,
          sleep(5000).then(() => {
            throw new Error('subscription did not end on close');
          }),
        ]);
        let error: unknown;
        try {
          await log.append([toolCalled(runId, undefined, 9)]);
        } catch (e) {
          error = e;
        }
        expect(error).to.be.instanceOf(LogClosedError);
      });
    });

    describe('runs', () => {
      it('lists runs sorted by id with status from RunStarted/RunCompleted', async () => {
        const base = uniqueRunId('runs');
        const [a, b, c, d] = [`${base}-a`, `${base}-b`, `${base}-c`, `${base}-d`];
        await log.append([runStarted(d, 1, 'suite-d'), runCompleted(d, 2, 'interrupted')]);
        await log.append([runStarted(b, 1, 'suite-b'), jobStarted(b), runCompleted(b, 3)]);
        // A started run is running while a writer holds it (here, this log); one whose writer is gone is interrupted.
        await log.claimWriter(a);
        await log.append([runStarted(a, 1, 'suite-a'), jobStarted(a)]);
        await log.append([jobStarted(c)]);
        const ours = (await log.runs()).filter((r) => r.runId.startsWith(base));
        expect(ours).to.deep.equal([
          { runId: a, status: 'running', suite: 'suite-a', startedAt: runStarted(a).at, events: 2 },
          { runId: b, status: 'completed', suite: 'suite-b', startedAt: runStarted(b).at, events: 3 },
          { runId: c, status: 'empty', suite: null, startedAt: null, events: 1 },
          { runId: d, status: 'interrupted', suite: 'suite-d', startedAt: runStarted(d).at, events: 2 },
        ]);
      });
    });

    describe('blobs', () => {
      it('round-trips put/get/has, idempotently, keyed by sha256', async () => {
        const blobs = log.blobs(uniqueRunId());
        const bytes = randomBytes(200_000);
        const hash = await blobs.put(bytes);
        expect(hash).to.equal(createHash('sha256').update(bytes).digest('hex'));
        expect(await blobs.has(hash)).to.equal(true);
        expect(Buffer.from(await blobs.get(hash)).equals(bytes)).to.equal(true);
        expect(await blobs.put(bytes)).to.equal(hash);
        expect(await blobs.put(new Uint8Array(0))).to.equal(createHash('sha256').digest('hex'));
        expect((await blobs.get(createHash('sha256').digest('hex'))).length).to.equal(0);
      });

      it('reports an unknown blob as absent', async () => {
        const blobs = log.blobs(uniqueRunId());
        const unknown = createHash('sha256').update('never stored').digest('hex');
        expect(await blobs.has(unknown)).to.equal(false);
        let error: unknown;
        try {
          await blobs.get(unknown);
        } catch (e) {
          error = e;
        }
        expect(error).to.be.instanceOf(BlobNotFoundError);
      });
    });

    describe('durability', () => {
      it('keeps events, seqs, dedup and blobs across a reopen', async function () {
        if (!subject.reopen) this.skip(); // a log without a reopen factory has nothing to survive a reopen; every log here (file, JetStream, memory) gives one
        const runId = uniqueRunId();
        const events: EvalogEvent[] = [runStarted(runId), ...jobEvents(runId, 4)];
        const results = await log.append(events);
        const hash = await log.blobs(runId).put(Buffer.from('message body'));
        await log.close();
        const reopened = await subject.reopen!();
        try {
          expect(await readAll(reopened, runId)).to.deep.equal(events.map((e, i) => ({ ...e, seq: results[i]!.seq })));
          await reopened.claimWriter(runId);
          expect(await reopened.append(events)).to.deep.equal(results.map((r) => ({ ...r, duplicate: true })));
          const [more] = await reopened.append([toolCalled(runId, undefined, 9)]);
          expect(more!.seq).to.be.greaterThan(results[4]!.seq);
          expect(Buffer.from(await reopened.blobs(runId).get(hash)).toString()).to.equal('message body');
          expect((await reopened.runs()).find((r) => r.runId === runId)?.status).to.equal('running');
        } finally {
          await reopened.close();
        }
      });
    });
  });
}

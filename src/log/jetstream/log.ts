// The EventLog on NATS JetStream: one file-backed stream, one subject per run and job, the event
// id as Nats-Msg-Id, the stream sequence as seq.
import { jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeEvent, encodeEvent, RUN_SCOPE, withSeq, type EvalogEvent, type StoredEvent } from '../../events/index.js';
import { FencedOffError, LogClosedError } from '../errors.js';
import type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from '../types.js';
import { AckInbox, PublishRejectedError } from './acks.js';
import { BlobBuckets, JetStreamBlobStore } from './blobs.js';
import { ConnectionWatch } from './connection.js';
import { AppendOrderError } from './errors.js';
import { KnownIds } from './known-ids.js';
import { CONNECTION_DEFAULTS, openStream, resolveOptions, type JetStreamLogOptions, type ResolvedOptions } from './options.js';
import { Publisher, type Outgoing } from './publisher.js';
import { WriterLeases } from './lock.js';
import { listRuns } from './runs.js';
import { scanStream, type ScanContext, type ScanOptions } from './scan.js';
import { eventBytes, pointerTo } from './spill.js';
import { checkRunId, Subjects } from './subjects.js';

// The server's max_payload counts the headers too: `NATS/1.0`, `Nats-Msg-Id: <id>` and line ends.
const HEADER_OVERHEAD = 64;

/** The EventLog on a NATS JetStream stream. */
export class JetStreamEventLog implements EventLog {
  private closed = false;
  private closing?: Promise<void>;
  private readonly stoppers = new Set<() => void>();
  private readonly appending = new Set<Promise<unknown>>();
  private readonly publisher: Publisher;
  private readonly known: KnownIds;
  private readonly buckets: BlobBuckets;
  private readonly leases: WriterLeases;
  private readonly acks: AckInbox;
  private readonly ctx: ScanContext;

  /** Connects to NATS (reconnecting forever by default) and opens the log's stream. */
  static async connect(options: JetStreamLogOptions): Promise<JetStreamEventLog> {
    const { servers, connection, ...rest } = options;
    const nc = await connect({ ...CONNECTION_DEFAULTS, ...connection, servers });
    try {
      return await JetStreamEventLog.open(nc, rest, true);
    } catch (e) {
      await nc.close();
      throw e;
    }
  }

  /** Opens the log on an existing connection; `close()` closes it only when `ownsConnection`. */
  static async open(nc: NatsConnection, options: Omit<JetStreamLogOptions, 'servers' | 'connection'> = {}, ownsConnection = false): Promise<JetStreamEventLog> {
    const o = resolveOptions(options);
    const subjects = new Subjects(o.subjectPrefix);
    const watch = new ConnectionWatch(nc);
    try {
      const { jsm, info } = await openStream({ nc, watch, retryMs: o.appendTimeoutMs, closed: () => false }, o, subjects);
      // An existing stream keeps its own window, and the known-id index must refresh within that one.
      const windowMs = (info.config.duplicate_window ?? 0) / 1_000_000 || 120_000;
      return new JetStreamEventLog(nc, jsm, jetstream(nc), { ...o, duplicateWindowMs: windowMs }, subjects, ownsConnection, watch);
    } catch (e) {
      watch.stop();
      throw e;
    }
  }

  private constructor(
    readonly nc: NatsConnection,
    jsm: JetStreamManager,
    js: JetStreamClient,
    readonly options: ResolvedOptions,
    readonly subjects: Subjects,
    private readonly ownsConnection: boolean,
    private readonly watch: ConnectionWatch,
  ) {
    // A custom inbox prefix (set for subject permissions) must be honoured by our own inbox too.
    const inboxPrefix = (nc as { options?: { inboxPrefix?: string } }).options?.inboxPrefix;
    this.acks = new AckInbox(nc, options.publishTimeoutMs, this.watch, inboxPrefix);
    this.publisher = new Publisher(nc, this.acks, options, () => this.closed || nc.isClosed(), this.watch);
    this.ctx = { nc, js, jsm, stream: options.streamName, watch, retryMs: options.appendTimeoutMs, closed: () => this.closed };
    this.known = new KnownIds(this.ctx, subjects, options.duplicateWindowMs / 2);
    this.buckets = new BlobBuckets(js, options.blobBucket, () => nc.info?.max_payload ?? 1024 * 1024, this.ctx);
    this.leases = new WriterLeases(js, options.lockBucket, options.writerLeaseMs, this.ctx);
  }

  /** How many publishing rounds were repeated after a connection loss or timeout. */
  get publishRetries(): number {
    return this.publisher.retries;
  }

  async append(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    if (this.closed) throw new LogClosedError();
    if (events.length === 0) return [];
    const p = this.appendNow(events);
    this.appending.add(p);
    try {
      return await p;
    } finally {
      this.appending.delete(p);
    }
  }

  private async appendNow(events: readonly EvalogEvent[]): Promise<AppendResult[]> {
    // A writer that lost its run's lock to another stops here (workers' fenced appends do not need it).
    for (const e of events) this.leases.check(e.runId);
    // Encode every event before anything is sent, so a bad one cannot leave half a batch stored; one
    // too large for a message goes to the run's blobs first (see spill.ts).
    const maxPayload = this.nc.info?.max_payload ?? 1024 * 1024;
    const encoded = await Promise.all(
      events.map(async (e) => {
        const subject = this.subjects.event(e.runId, e.jobId);
        const payload = encodeEvent(e);
        return { subject, id: e.id, payload: await this.fitted(e.runId, payload, maxPayload - HEADER_OVERHEAD - Buffer.byteLength(e.id)) };
      }),
    );
    await Promise.all([...new Set(events.map((e) => e.runId))].map((r) => this.known.refresh(r)));
    if (this.closed) throw new LogClosedError();

    const results: (AppendResult | undefined)[] = new Array(events.length);
    const firstOf = new Map<string, number>();
    const repeats: [number, number][] = [];
    const sent: number[] = [];
    const outgoing: Outgoing[] = [];
    events.forEach((e, i) => {
      const known = this.known.lookup(e.runId, e.id);
      const earlier = firstOf.get(e.id);
      if (known !== undefined) results[i] = { id: e.id, seq: known, duplicate: true };
      else if (earlier !== undefined) repeats.push([i, earlier]);
      else {
        firstOf.set(e.id, i);
        sent.push(i);
        outgoing.push(encoded[i]!);
      }
    });
    const acks = await this.publisher.publish(outgoing);
    acks.forEach((ack, k) => {
      const e = events[sent[k]!]!;
      results[sent[k]!] = { id: e.id, seq: ack.seq, duplicate: ack.duplicate };
      this.known.record(e.runId, e.id, ack.seq);
    });
    for (const [i, earlier] of repeats) results[i] = { id: events[i]!.id, seq: results[earlier]!.seq, duplicate: true };
    checkOrder(results as AppendResult[]);
    return results as AppendResult[];
  }

  /** The message for an encoded event: itself, or, when over `limit`, a pointer to it stored as a blob (see spill.ts). */
  private async fitted(runId: string, payload: Uint8Array, limit: number): Promise<Uint8Array> {
    return payload.length > limit ? pointerTo(await this.blobs(runId).put(payload)) : payload;
  }

  async appendAfter(event: EvalogEvent, fence: Fence): Promise<AppendResult> {
    if (this.closed) throw new LogClosedError();
    const subject = this.subjects.event(event.runId, event.jobId);
    const limit = (this.nc.info?.max_payload ?? 1024 * 1024) - HEADER_OVERHEAD - 2 * Buffer.byteLength(event.id) - Buffer.byteLength(fence.writer);
    const payload = await this.fitted(event.runId, encodeEvent(event), limit);
    // The writer is part of the dedup id: a lost-ack resend by this writer is a duplicate, while the
    // same event id from a fenced-off writer must meet the sequence check (and fail it).
    const item = { subject, id: event.id, payload, msgId: `${event.id}@${fence.writer}`, expectLastSubjectSeq: fence.afterSeq };
    const p = this.publisher.publish([item]);
    this.appending.add(p);
    try {
      const [ack] = await p;
      this.known.record(event.runId, event.id, ack!.seq);
      return { id: event.id, seq: ack!.seq, duplicate: ack!.duplicate };
    } catch (e) {
      if (wrongLastSequence(e)) throw new FencedOffError(event.id, fence.afterSeq, { cause: e });
      throw e;
    } finally {
      this.appending.delete(p);
    }
  }

  async *read(runId: string, options: ReadOptions = {}): AsyncGenerator<StoredEvent> {
    const filter = options.jobId === undefined ? undefined : this.subjects.event(runId, options.jobId === RUN_SCOPE ? undefined : options.jobId);
    yield* this.events(runId, { from: options.from, live: false }, filter);
  }

  async *subscribe(runId: string, options: SubscribeOptions = {}): AsyncGenerator<StoredEvent> {
    yield* this.events(runId, { from: options.from, live: true, signal: options.signal });
  }

  private async *events(runId: string, o: ScanOptions, filter?: string): AsyncGenerator<StoredEvent> {
    if (this.closed) throw new LogClosedError();
    checkRunId(runId);
    const track = (stop: () => void) => {
      this.stoppers.add(stop);
      return () => this.stoppers.delete(stop);
    };
    const stream = this.options.streamName;
    for await (const m of scanStream(this.ctx, filter ?? this.subjects.run(runId), { ...o, track })) {
      const where = `${stream} seq ${m.seq} (${m.subject})`;
      yield withSeq(decodeEvent(await eventBytes(m.data, () => this.blobs(runId), where), where), m.seq);
    }
  }

  async claimWriter(runId: string): Promise<void> {
    if (this.closed) throw new LogClosedError();
    checkRunId(runId);
    await this.leases.acquire(runId);
  }

  async runs(): Promise<RunInfo[]> {
    if (this.closed) throw new LogClosedError();
    return listRuns(
      this.ctx,
      this.subjects,
      (runId) => this.leases.holder(runId),
      (runId) => this.blobs(runId),
    );
  }

  blobs(runId: string): BlobStore {
    if (this.closed) throw new LogClosedError();
    checkRunId(runId);
    return new JetStreamBlobStore(this.buckets, runId);
  }

  /** Ends subscriptions, lets appends in flight finish (bounded), then drains the connection. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    for (const stop of [...this.stoppers]) stop();
    this.watch.stop();
    await Promise.race([Promise.allSettled([...this.appending]), delay(this.options.publishTimeoutMs)]);
    await this.leases.releaseAll();
    this.acks.stop(new LogClosedError());
    if (!this.ownsConnection || this.nc.isClosed()) return;
    // drain() waits for a round trip; a server that is gone must not hold close() up.
    await Promise.race([this.nc.drain().catch(() => undefined), delay(2_000)]);
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

// One connection keeps a batch in order; this only trips if a reconnect reordered it anyway.
function checkOrder(results: readonly AppendResult[]): void {
  let last = 0;
  for (const r of results) {
    if (r.duplicate) continue;
    if (r.seq <= last) throw new AppendOrderError(r.id, r.seq, last);
    last = r.seq;
  }
}

// JSErrCodeStreamWrongLastSequence: the subject moved on since the writer's fence.
const WRONG_LAST_SEQUENCE = 10071;

function wrongLastSequence(e: unknown): boolean {
  for (let x: unknown = e; x; x = (x as { cause?: unknown }).cause) {
    if (x instanceof PublishRejectedError && x.errCode === WRONG_LAST_SEQUENCE) return true;
  }
  return false;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

// The run's writer lock in NATS: one KV entry per run (key = run id) holding "<pid>\n<host>\n",
// created only where none is, and kept as a lease: the holder rewrites it (fenced by revision)
// every quarter of the bucket's TTL. A holder on this host whose pid is gone is taken over at once,
// as the file log's lock is; one on another host cannot be checked from here, so its entry must
// expire first (at most one TTL after it died). A holder whose renewal finds another revision has
// lost the lock: the log then refuses its appends to that run.
import { hostname } from 'node:os';
import { JetStreamApiCodes, JetStreamApiError, StorageType, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { LogLockedError } from '../errors.js';
import { retrying, type RetryContext } from './retry.js';

/** Who holds a run's writer lock, and whether that writer is known to be gone. */
export interface LeaseHolder {
  pid: number;
  host: string;
  /** False only when the holder is on this host and its pid is not running. */
  alive: boolean;
}

interface Held {
  revision: number;
  timer: NodeJS.Timeout;
}

/** The writer leases of one log's runs. */
export class WriterLeases {
  private kvOpen?: Promise<KV>;
  private readonly held = new Map<string, Held>();
  private readonly claiming = new Map<string, Promise<void>>();
  private readonly lost = new Map<string, LogLockedError>();
  private readonly content = `${process.pid}\n${hostname()}\n`;

  constructor(
    private readonly js: JetStreamClient,
    readonly bucket: string,
    readonly leaseMs: number,
    private readonly ctx: RetryContext,
  ) {}

  /** Takes the lease of a run (once per log), or throws LogLockedError naming the live holder. */
  acquire(runId: string): Promise<void> {
    let p = this.claiming.get(runId);
    if (!p) {
      p = this.take(runId);
      p.catch(() => this.claiming.delete(runId));
      this.claiming.set(runId, p);
    }
    return p;
  }

  /** Throws if this log held the run's lease and lost it to another writer. */
  check(runId: string): void {
    const e = this.lost.get(runId);
    if (e) throw e;
  }

  /** The current holder of a run's lease, or null when none holds it. */
  async holder(runId: string): Promise<LeaseHolder | null> {
    const kv = await this.kv();
    const entry = await retrying(this.ctx, `reading the writer lock of run ${runId}`, () => kv.get(runId));
    return entry && entry.operation === 'PUT' ? parse(entry.string()) : null;
  }

  /** Stops renewing and removes every lease still ours. */
  async releaseAll(): Promise<void> {
    const kv = this.kvOpen ? await this.kvOpen.catch(() => null) : null;
    await Promise.all(
      [...this.held].map(async ([runId, h]) => {
        clearInterval(h.timer);
        this.held.delete(runId);
        // Fenced by revision: a lease taken over meanwhile is the new holder's and stays.
        await kv?.delete(runId, { previousSeq: h.revision }).catch(() => undefined);
      }),
    );
  }

  private kv(): Promise<KV> {
    this.kvOpen ??= retrying(this.ctx, `opening KV bucket ${this.bucket}`, () =>
      new Kvm(this.js).create(this.bucket, { history: 1, storage: StorageType.File, ttl: this.leaseMs }),
    ).catch((e) => {
      this.kvOpen = undefined;
      throw e;
    });
    return this.kvOpen;
  }

  private async take(runId: string): Promise<void> {
    const kv = await this.kv();
    const where = `NATS KV ${this.bucket}/${runId}`;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const created = await retrying(this.ctx, `taking the writer lock of run ${runId}`, () => kv.create(runId, this.content).catch(ifExists(null)));
      if (created !== null) return this.hold(kv, runId, created);
      const entry = await retrying(this.ctx, `reading the writer lock of run ${runId}`, () => kv.get(runId));
      if (entry?.operation !== 'PUT') continue; // released or expired meanwhile: create again
      const h = parse(entry.string());
      if (h.alive) {
        const who = h.host === hostname() ? `running process ${h.pid}` : `process ${h.pid} on host ${h.host}`;
        throw new LogLockedError(
          where,
          `${where}: run ${runId} is held by ${who}; another evalog is writing this run (a writer on another host that died frees it within ${Math.ceil(this.leaseMs / 1000)} s)`,
        );
      }
      // A dead holder on this host: take over, fenced by its revision so a racing taker loses.
      const taken = await retrying(this.ctx, `taking over the writer lock of run ${runId}`, () =>
        kv.update(runId, this.content, entry.revision).catch(ifExists(null)),
      );
      if (taken !== null) return this.hold(kv, runId, taken);
    }
    throw new LogLockedError(where, `${where}: could not take the writer lock of run ${runId} (it kept changing hands)`);
  }

  private hold(kv: KV, runId: string, revision: number): void {
    const renew = async () => {
      const h = this.held.get(runId);
      if (!h) return;
      try {
        h.revision = await kv.update(runId, this.content, h.revision);
      } catch (e) {
        if (!isWrongRevision(e)) return; // a disconnect: the next renewal tries again
        clearInterval(h.timer);
        this.held.delete(runId);
        const where = `NATS KV ${this.bucket}/${runId}`;
        this.lost.set(
          runId,
          new LogLockedError(where, `${where}: this process lost the writer lock of run ${runId} to another writer; it appends nothing more to it`),
        );
      }
    };
    const timer = setInterval(() => void renew(), Math.max(250, Math.floor(this.leaseMs / 4)));
    timer.unref();
    this.held.set(runId, { revision, timer });
  }
}

function parse(text: string): LeaseHolder {
  const [pidText, host = ''] = text.split('\n');
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || host !== hostname() || pid === process.pid) return { pid, host, alive: true };
  try {
    process.kill(pid, 0);
    return { pid, host, alive: true };
  } catch (e) {
    return { pid, host, alive: (e as NodeJS.ErrnoException).code === 'EPERM' };
  }
}

function isWrongRevision(e: unknown): boolean {
  for (let x: unknown = e; x; x = (x as { cause?: unknown }).cause) {
    if (x instanceof JetStreamApiError && x.code === JetStreamApiCodes.StreamWrongLastSequence) return true;
  }
  return false;
}

function ifExists<T>(value: T): (e: unknown) => T {
  return (e) => {
    if (isWrongRevision(e)) return value;
    throw e;
  };
}

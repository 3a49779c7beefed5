// PubAcks of the log's publishes, matched on one inbox subscription. js.publish() makes a full
// request per message: a timer, a mux entry, and an Error with a captured stack even on success,
// which profiled at a third of a publish's client CPU. The log sends plain publishes with a reply
// subject instead, matches the answers itself, and times them out with one sweep.
import { createInbox, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { ConnectionWatch } from './connection.js';

/** The stream's acknowledgement of one stored (or deduplicated) message. */
export interface PubAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

/** No PubAck within the publish timeout; the message may or may not be stored. */
export class PublishTimeoutError extends Error {
  override name = 'PublishTimeoutError';
  constructor(subject: string, ms: number) {
    super(`no acknowledgement for a publish to ${subject} within ${ms} ms`);
  }
}

/** The server answered with an error: `status` 503 means JetStream is not (yet) serving the subject. */
export class PublishRejectedError extends Error {
  override name = 'PublishRejectedError';
  constructor(
    readonly subject: string,
    readonly status: number,
    readonly errCode: number | undefined,
    description: string,
  ) {
    super(`publish to ${subject} refused (${status}${errCode ? `/${errCode}` : ''}): ${description}`);
  }
}

interface Pending {
  subject: string;
  at: number;
  resolve: (ack: PubAck) => void;
  reject: (e: Error) => void;
}

/** A publish waiting for this turn of the event loop to end. */
interface Unsent {
  token: number;
  subject: string;
  payload: Uint8Array;
  headers: ReturnType<typeof headers>;
}

/** Publishes with Nats-Msg-Id and resolves each with its PubAck. */
export class AckInbox {
  private readonly prefix: string;
  private readonly pending = new Map<number, Pending>();
  private next = 0;
  /** Publishes of this turn of the event loop, sent together when it ends (see publish). */
  private unsent: Unsent[] = [];
  private readonly sub: Subscription;
  private readonly sweeper: NodeJS.Timeout;
  private readonly unwatch: () => void;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
    watch: ConnectionWatch,
    inboxPrefix?: string,
  ) {
    this.prefix = `${createInbox(inboxPrefix)}.`;
    this.sub = nc.subscribe(`${this.prefix}*`, { callback: (_err, msg) => this.answer(msg) });
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.floor(timeoutMs / 4))).unref();
    // Nothing sent before a disconnect or reconnect will be answered (see ConnectionWatch).
    this.unwatch = watch.on(() => this.failAll(watch.lostError()));
  }

  /**
   * Publishes one message; resolves with its PubAck, rejects on refusal, loss or timeout. With
   * `expectLastSubjectSeq` the stream stores it only if the subject's last message has that seq
   * (0 = none); the server checks the Nats-Msg-Id for a duplicate first, so a resend still dedups.
   */
  publish(subject: string, payload: Uint8Array, msgId: string, expectLastSubjectSeq?: number): Promise<PubAck> {
    const token = ++this.next;
    const h = headers();
    h.set('Nats-Msg-Id', msgId);
    if (expectLastSubjectSeq !== undefined) h.set('Nats-Expected-Last-Subject-Sequence', String(expectLastSubjectSeq));
    return new Promise<PubAck>((resolve, reject) => {
      this.pending.set(token, { subject, at: performance.now(), resolve, reject });
      // The client writes to its socket once per microtask turn, and the appends of different jobs
      // come on different turns: a write each (6 % of a 10 000-case run's CPU). Held to the end of
      // this turn of the event loop, every publish of the turn goes out in one write, as the
      // embedded log group-commits. Order is kept: the batch goes out in the order it was made.
      if (this.unsent.push({ token, subject, payload, headers: h }) === 1) setImmediate(() => this.send());
    });
  }

  /** Sends the turn's publishes in order; one failed or no longer pending (failAll, a timeout) is not sent. */
  private send(): void {
    const batch = this.unsent;
    this.unsent = [];
    for (const o of batch) {
      const p = this.pending.get(o.token);
      // A publish failed before it was sent (a disconnect meanwhile) must not reach the stream after
      // its failure was reported: its retry would then be stored after what follows it.
      if (!p) continue;
      try {
        this.nc.publish(o.subject, o.payload, { reply: `${this.prefix}${o.token}`, headers: o.headers });
      } catch (e) {
        this.pending.delete(o.token);
        p.reject(e as Error);
      }
    }
  }

  /** Stops matching; whatever is pending fails with `reason`. */
  stop(reason: Error): void {
    clearInterval(this.sweeper);
    this.unwatch();
    this.failAll(reason);
    if (!this.nc.isClosed()) this.sub.unsubscribe();
  }

  private answer(msg: Msg | undefined): void {
    if (!msg) return;
    const token = Number(msg.subject.slice(this.prefix.length));
    const p = this.pending.get(token);
    if (!p) return; // already timed out or failed: its retry learns the outcome as a duplicate
    this.pending.delete(token);
    if (msg.data.length === 0) {
      const code = msg.headers?.code ?? 0;
      p.reject(
        new PublishRejectedError(
          p.subject,
          code,
          undefined,
          code === 503 ? 'no stream is serving the subject (no responders)' : (msg.headers?.description ?? 'empty answer'),
        ),
      );
      return;
    }
    try {
      const r = JSON.parse(new TextDecoder().decode(msg.data)) as {
        stream?: string;
        seq?: number;
        duplicate?: boolean;
        error?: { code: number; err_code?: number; description: string };
      };
      if (r.error) p.reject(new PublishRejectedError(p.subject, r.error.code, r.error.err_code, r.error.description));
      else if (typeof r.seq === 'number' && r.stream) p.resolve({ stream: r.stream, seq: r.seq, duplicate: r.duplicate === true });
      else p.reject(new PublishRejectedError(p.subject, 0, undefined, `unexpected answer ${JSON.stringify(r)}`));
    } catch (e) {
      p.reject(new PublishRejectedError(p.subject, 0, undefined, `unreadable answer: ${(e as Error).message}`));
    }
  }

  private sweep(): void {
    const oldest = performance.now() - this.timeoutMs;
    // Map order is insertion order, so the expired entries come first.
    for (const [token, p] of this.pending) {
      if (p.at > oldest) break;
      this.pending.delete(token);
      p.reject(new PublishTimeoutError(p.subject, this.timeoutMs));
    }
  }

  private failAll(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }
}

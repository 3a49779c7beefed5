// Pipelined publishing with ordered results and retry through connection loss.
//
// Order: one connection delivers a round's messages in order, so what the server stored of a
// round is a prefix of it. On the first failure a round stops issuing, lets the in-flight
// publishes settle, and the next round republishes every unacknowledged message in order; the
// stored ones come back as duplicates with their original seq (Nats-Msg-Id dedup). After a
// disconnect the next round sends one message alone until it is acknowledged, so a stream that is
// still recovering cannot accept message k+1 after refusing message k.
import type { NatsConnection } from '@nats-io/transport-node';
import { LogClosedError } from '../errors.js';
import { PublishRejectedError, PublishTimeoutError, type AckInbox } from './acks.js';
import { ConnectionLostError, type ConnectionWatch } from './connection.js';
import { AppendFailedError } from './errors.js';

/** One message to publish. */
export interface Outgoing {
  subject: string;
  id: string;
  payload: Uint8Array;
  /** Nats-Msg-Id when it is not the event id (fenced appends add the writer). */
  msgId?: string;
  /** Fenced append: the seq the subject's last message must have. */
  expectLastSubjectSeq?: number;
}

/** The stream's answer for one message. */
export interface Acked {
  seq: number;
  /** Stored before this call (a retry of our own lost acknowledgement is not a duplicate). */
  duplicate: boolean;
}

/** Pipelined JetStream publisher shared by every append of one log. */
export class Publisher {
  /** False after a disconnect or a failed publish, until the stream acknowledges again. */
  private healthy = true;
  /** Publishes in flight over all appends; the window bounds this sum, not each append. */
  private inflightTotal = 0;
  /** Rounds waiting for room in the window. */
  private readonly waiting = new Set<() => void>();
  /** Rounds that had to be repeated after a failure (for tests and diagnostics). */
  retries = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly acks: AckInbox,
    private readonly o: { publishWindow: number; appendTimeoutMs: number },
    private readonly isClosed: () => boolean,
    watch: ConnectionWatch,
  ) {
    watch.on(() => (this.healthy = false));
  }

  /** Publishes all messages; the answers are in input order. */
  async publish(items: readonly Outgoing[]): Promise<Acked[]> {
    const out: (Acked | undefined)[] = new Array(items.length);
    const tried = new Uint8Array(items.length);
    let todo = items.map((_, i) => i);
    const deadline = performance.now() + this.o.appendTimeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      if (!this.healthy) await this.reachable(deadline);
      const error = await this.round(items, todo, out, tried);
      todo = todo.filter((i) => out[i] === undefined);
      if (todo.length === 0) return out as Acked[];
      if (this.isClosed()) throw new LogClosedError();
      const acked = items.length - todo.length;
      const first = items[todo[0]!]!.id;
      if (!retryable(error)) throw new AppendFailedError(`publishing event ${first} failed: ${(error as Error)?.message}`, acked, { cause: error });
      if (performance.now() > deadline) {
        throw new AppendFailedError(`publishing event ${first} still failed after ${this.o.appendTimeoutMs} ms of retries`, acked, { cause: error });
      }
      this.retries += 1;
      await delay(Math.min(1000, 25 * 2 ** attempt));
    }
  }

  /** One pass over `todo` with a sliding window; resolves with the first error, if any. */
  private round(items: readonly Outgoing[], todo: number[], out: (Acked | undefined)[], tried: Uint8Array): Promise<unknown> {
    let limit = this.healthy ? this.o.publishWindow : 1;
    let next = 0;
    let inflight = 0;
    let failed = false;
    let failure: unknown;
    return new Promise((resolve) => {
      const settle = () => {
        inflight -= 1;
        this.inflightTotal -= 1;
        // Waiting appends go first, so one large batch cannot starve small ones.
        for (const wake of [...this.waiting]) {
          this.waiting.delete(wake);
          wake();
        }
        if (inflight === 0 && (failed || next >= todo.length)) resolve(failure);
        else pump();
      };
      const pump = () => {
        while (!failed && inflight < limit && this.inflightTotal < this.o.publishWindow && next < todo.length) {
          const i = todo[next++]!;
          const item = items[i]!;
          const retry = tried[i] === 1;
          tried[i] = 1;
          inflight += 1;
          this.inflightTotal += 1;
          // A publish sent before a disconnect or reconnect fails at once (see ConnectionWatch); if
          // it was stored after all, its retry comes back as a duplicate with the original seq.
          this.acks
            .publish(item.subject, item.payload, item.msgId ?? item.id, item.expectLastSubjectSeq)
            .then(
              (ack) => {
                out[i] = { seq: ack.seq, duplicate: ack.duplicate && !retry };
                this.healthy = true;
                limit = this.o.publishWindow;
              },
              (e: unknown) => {
                if (!failed) failure = e;
                failed = true;
                this.healthy = false;
              },
            )
            .then(settle);
        }
        // Nothing of ours in flight and no room: another append's settle will wake this one.
        if (inflight === 0 && !failed && next < todo.length) this.waiting.add(pump);
      };
      if (todo.length === 0) resolve(undefined);
      else pump();
    });
  }

  /** Waits until a PING round trip succeeds (the client is connected again) or the deadline. */
  private async reachable(deadline: number): Promise<void> {
    while (!this.isClosed() && !this.nc.isClosed()) {
      try {
        await Promise.race([this.nc.flush(), delay(1000).then(() => Promise.reject(new Error('no PONG within 1 s')))]);
        return;
      } catch {
        if (performance.now() > deadline) return;
        await delay(100);
      }
    }
  }
}

// Lost connections, timeouts and a JetStream that is not answering yet are worth a retry; a
// closed connection or an explicit refusal by the stream (too large, limits) is not.
function retryable(e: unknown): boolean {
  if (e instanceof PublishRejectedError) return e.status === 503;
  return e instanceof ConnectionLostError || e instanceof PublishTimeoutError;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// Follows the connection's status for the publisher and the scans. The client drops whatever it
// buffered while disconnected, so a request sent before a disconnect or a reconnect may never be
// answered: waiting for its timeout would stall appends and reads for seconds after a restart.
import type { NatsConnection } from '@nats-io/transport-node';

/** A request was sent on a connection that has since dropped; retrying it is safe. */
export class ConnectionLostError extends Error {
  override name = 'ConnectionLostError';
  constructor() {
    super('connection to NATS lost or re-established while a request was pending');
  }
}

/** Reports every disconnect and reconnect of one connection. */
export class ConnectionWatch {
  private epoch!: { promise: Promise<never>; fail: () => void };
  private readonly listeners = new Set<() => void>();
  private readonly status: AsyncIterable<{ type: string }> & { stop(): void };

  constructor(nc: NatsConnection) {
    this.renew();
    // status() hands out a stoppable queue although its type only says AsyncIterable.
    const status = nc.status() as AsyncIterable<{ type: string }> & { stop(): void };
    this.status = status;
    void (async () => {
      for await (const s of status) if (s.type === 'disconnect' || s.type === 'reconnect') this.changed();
    })().catch(() => undefined);
  }

  /** Rejects with ConnectionLostError at the next disconnect or reconnect. */
  get next(): Promise<never> {
    return this.epoch.promise;
  }

  /** Calls `fn` at every disconnect and reconnect; returns the function that unregisters it. */
  on(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A fresh ConnectionLostError (for callers that fail their own pending requests). */
  lostError(): ConnectionLostError {
    return new ConnectionLostError();
  }

  /** Races a request against the next connection change. */
  guard<T>(request: Promise<T>): Promise<T> {
    return Promise.race([request, this.epoch.promise]);
  }

  /** Stops following the connection. */
  stop(): void {
    this.status.stop();
  }

  private changed(): void {
    const old = this.epoch;
    this.renew();
    for (const fn of [...this.listeners]) fn();
    old.fail();
  }

  private renew(): void {
    let fail!: () => void;
    const promise = new Promise<never>((_, reject) => (fail = () => reject(new ConnectionLostError())));
    promise.catch(() => undefined); // observed by the races; never an unhandled rejection
    this.epoch = { promise, fail };
  }
}

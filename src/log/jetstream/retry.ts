// Retry of the JetStream requests the log makes for a caller (stream and bucket opening, blob
// puts and gets, stream info). Around a server restart such a request fails in ways that heal by
// waiting: sent while disconnected, it is dropped at the reconnect (the client empties its buffer)
// and would only fail at its 5 s timeout; sent while JetStream is still starting, it finds no
// responders (503). So each attempt is raced against the next disconnect or reconnect, and a
// transient failure is retried with a bounded backoff until the deadline; anything else (a refused
// config, a permission error) fails at once. Either way the caller gets a JetStreamRequestError
// that names the operation, with the last failure as its cause.
import { JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { errors, type NatsConnection } from '@nats-io/transport-node';
import { LogClosedError } from '../errors.js';
import { ConnectionLostError, type ConnectionWatch } from './connection.js';
import { JetStreamRequestError } from './errors.js';

/** What a retried request needs to know about its log. */
export interface RetryContext {
  nc: NatsConnection;
  watch: ConnectionWatch;
  /** How long one operation keeps retrying transient failures (the log's appendTimeoutMs). */
  retryMs: number;
  /** True once the log is closed: a failing request then ends with LogClosedError. */
  closed: () => boolean;
}

/** How an attempt is run: `guard: false` for multi-step writes that must not be abandoned midway. */
export interface RetryOptions {
  guard?: boolean;
}

/** Runs `attempt` until it succeeds, fails for good, or transient failures outlast the deadline. */
export async function retrying<T>(ctx: RetryContext, operation: string, attempt: () => Promise<T>, o: RetryOptions = {}): Promise<T> {
  const deadline = performance.now() + ctx.retryMs;
  for (let n = 0; ; n += 1) {
    if (ctx.closed()) throw new LogClosedError();
    try {
      // A guarded attempt also ends at the deadline, rather than at its own request timeout.
      return await (o.guard === false ? attempt() : ctx.watch.guard(within(attempt(), deadline - performance.now())));
    } catch (e) {
      if (ctx.closed()) throw new LogClosedError();
      if (!isTransient(e) || ctx.nc.isClosed()) throw new JetStreamRequestError(operation, null, { cause: e });
      const left = deadline - performance.now();
      if (left <= 0) throw new JetStreamRequestError(operation, ctx.retryMs, { cause: e });
      await delay(Math.min(left, 1_000, 25 * 2 ** n));
    }
  }
}

/**
 * Failures that a wait can heal: a lost or re-established connection, a request timeout, and a
 * JetStream that is not answering yet (no responders, 503, 408). A server that answers that
 * JetStream is disabled for the account, or refuses the request, is not transient.
 */
export function isTransient(e: unknown): boolean {
  if (e instanceof ConnectionLostError || e instanceof errors.TimeoutError) return true;
  if (e instanceof errors.ClosedConnectionError || e instanceof errors.DrainingConnectionError) return true;
  if (e instanceof errors.RequestError) return e.isNoResponders() || /disconnect/i.test(e.message);
  // The client's name for a request that found no responders; the server's own answer has a cause.
  if (e instanceof Error && e.name === 'JetStreamNotEnabled') return !(e.cause instanceof JetStreamApiError);
  if (e instanceof JetStreamApiError) return e.status === 503 || e.status === 408;
  if (e instanceof JetStreamError && 'code' in e) return e.code === 503 || e.code === 408;
  return false;
}

function within<T>(request: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new errors.TimeoutError()), Math.max(0, ms))));
  return Promise.race([request, expired]).finally(() => clearTimeout(timer));
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// One pass over the messages of a subject filter, in stream order, following the ordered-consumer
// pattern: an ephemeral, unacknowledged pull consumer starting after the last delivered stream seq,
// recreated from there whenever anything looks wrong (a reconnect, a missing consumer, missed
// heartbeats, a gap in delivery sequences). Recreating from the cursor is what keeps a pass free
// of loss and repeats, including at the catch-up/live boundary, which is the same consumer going
// on. The library's own ordered consume() is not used: in nats.js 3.4.0, after it recreates the
// consumer it keeps the old pull accounting, and a live subscription stalls until two heartbeats
// are missed.
import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  type Consumer,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { JetStreamRequestError } from './errors.js';
import { isTransient, type RetryContext } from './retry.js';

/** The connection and JetStream handles a scan needs; a read retries for `retryMs`. */
export interface ScanContext extends RetryContext {
  js: JetStreamClient;
  jsm: JetStreamManager;
  stream: string;
}

/** Where a scan starts and whether it follows live appends. */
export interface ScanOptions {
  /** Inclusive stream seq; absent or ≤ 1 means the start. */
  from?: number;
  /** Follow appends after the current end (subscribe) or stop there (read). */
  live: boolean;
  signal?: AbortSignal;
  /** Messages without payload, for the known-id index. */
  headersOnly?: boolean;
  /** Registers a stopper that `close()` calls; returns the unregister function. */
  track?: (stop: () => void) => () => void;
}

const BATCH = 256;
// A live pull stays open this long; it also bounds how long a silently lost consumer goes unnoticed.
const LIVE_EXPIRES_MS = 5_000;

/** Yields the stored messages of `filter` from `from`, in stream order, each once. */
export async function* scanStream(ctx: ScanContext, filter: string, o: ScanOptions): AsyncGenerator<JsMsg> {
  let cursor = o.from !== undefined && o.from > 1 ? Math.floor(o.from) - 1 : 0;
  let remaining = o.live ? Infinity : -1; // a read learns its end from the first consumer's info
  let stopped = o.signal?.aborted === true;
  let current: ConsumerMessages | undefined;
  let consumer: ConsumerInfo | undefined;
  let pull: Consumer | undefined;
  const stop = () => {
    stopped = true;
    current?.stop();
  };
  let stale = false;
  // After a disconnect the server may have lost the (memory-backed) consumer: start over.
  const unwatch = ctx.watch.on(() => {
    stale = true;
    current?.stop();
  });
  o.signal?.addEventListener('abort', stop, { once: true });
  const untrack = o.track?.(stop);
  const drop = () => {
    if (consumer) ctx.jsm.consumers.delete(ctx.stream, consumer.name).catch(() => false);
    consumer = undefined;
  };
  let failingSince = 0;
  let failures = 0;
  let dseq = 0; // delivery seq of the current consumer's last message
  // A read ends at the stream's last seq when it started: every append acknowledged before the read
  // is at or below it, and appends made while it reads (a live run) cannot keep it going.
  let end = o.live ? Infinity : -1;
  try {
    while (!stopped && !ctx.nc.isClosed()) {
      try {
        if (end < 0) end = (await ctx.watch.guard(ctx.jsm.streams.info(ctx.stream))).state.last_seq;
        if (cursor >= end) return;
        if (stale || !consumer) {
          stale = false;
          drop();
          consumer = await ctx.watch.guard(ctx.jsm.consumers.add(ctx.stream, consumerConfig(filter, cursor + 1, o.headersOnly === true)));
          pull = ctx.js.consumers.getConsumerFromInfo(consumer);
          dseq = 0;
          // What matched when the first consumer was made is the "current end" of a read.
          if (!o.live) remaining = remaining < 0 ? consumer.num_pending : Math.min(remaining, consumer.num_pending);
          if (remaining === 0) return;
        }
        current = await pull!.fetch({ max_messages: Math.min(BATCH, remaining), expires: o.live ? LIVE_EXPIRES_MS : 30_000 });
        if (stopped) return;
        let got = 0;
        for await (const m of current) {
          got += 1;
          // A gap in delivery sequences means the server lost track: recreate after the cursor.
          if (dseq !== 0 && m.info.deliverySequence !== dseq + 1) {
            stale = true;
            break;
          }
          dseq = m.info.deliverySequence;
          if (m.seq <= cursor) continue;
          if (m.seq > end) return;
          cursor = m.seq;
          failures = 0;
          yield m;
          if (stopped) return;
          remaining -= 1;
          if (remaining === 0) {
            // The count taken when the consumer was made can trail an append that was already
            // acknowledged (seen on nats-server 2.9.10): ask again before declaring the end.
            if (cursor >= end) return;
            remaining = (await ctx.watch.guard(ctx.jsm.consumers.info(ctx.stream, consumer!.name))).num_pending;
            if (remaining === 0) return;
            break;
          }
        }
        // A read whose pull found nothing while messages were due: the run was purged meanwhile;
        // a new consumer's count says what is left.
        if (!o.live && got === 0) stale = true;
      } catch (e) {
        if (stopped || ctx.nc.isClosed()) return;
        const what = `reading ${filter} from stream ${ctx.stream}`;
        if (!retryable(e)) throw new JetStreamRequestError(what, null, { cause: e });
        if (failures === 0) failingSince = performance.now();
        // A read gives up at the log's retry deadline; a subscription waits for the server forever.
        if (!o.live && performance.now() - failingSince > ctx.retryMs) throw new JetStreamRequestError(what, ctx.retryMs, { cause: e });
        stale = true;
        await delay(Math.min(2_000, 50 * 2 ** failures++));
      } finally {
        current?.stop(); // when the caller broke out mid-batch, the pull must not linger
        current = undefined;
      }
    }
  } finally {
    unwatch();
    o.signal?.removeEventListener('abort', stop);
    untrack?.();
    drop();
  }
}

function consumerConfig(filter: string, start: number, headersOnly: boolean): Partial<ConsumerConfig> {
  return {
    filter_subject: filter,
    ...(start > 1 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start } : { deliver_policy: DeliverPolicy.All }),
    ack_policy: AckPolicy.None,
    max_deliver: 1,
    mem_storage: true,
    num_replicas: 1,
    // Ephemeral: the server removes it when nobody pulls, whatever happens to this process.
    inactive_threshold: nanos(5 * 60_000),
    ...(headersOnly ? { headers_only: true } : {}),
  };
}

// A missing stream or a refused consumer config will not heal by waiting. Everything else might:
// besides the transient request failures, the pull's own troubles (a deleted or lost consumer,
// missed heartbeats) are cured by a new consumer from the cursor.
function retryable(e: unknown): boolean {
  if (!(e instanceof JetStreamApiError)) return true;
  return isTransient(e) || e.code === JetStreamApiCodes.ConsumerNotFound;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

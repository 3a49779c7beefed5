// Options of the JetStream log, their defaults, and the stream it writes to.
import {
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import type { NodeConnectionOptions } from '@nats-io/transport-node';
import { StreamConfigError } from './errors.js';
import { retrying, type RetryContext } from './retry.js';
import type { Subjects } from './subjects.js';

/** How to reach NATS and name the log's resources; credentials go in `connection`. */
export interface JetStreamLogOptions {
  servers: string | string[];
  /** Stream holding every run's events; default `EVALOG`. */
  streamName?: string;
  /** First subject tokens; default `evalog`, giving `evalog.run.<runId>.<jobId|_run>`. */
  subjectPrefix?: string;
  /** KV bucket (and object store, for large blobs) holding blobs; default `evalog-blobs`. */
  blobBucket?: string;
  /** KV bucket holding each run's writer lock (a lease); default `evalog-writers`. */
  lockBucket?: string;
  /** How long a writer lock outlives its last renewal (a holder renews every quarter of it); default 60 s. */
  writerLeaseMs?: number;
  /** Server-side dedup window of a stream this log creates; default 10 min (the known-id index covers older ids). */
  duplicateWindowMs?: number;
  /** Publishes in flight at once, over all concurrent appends; default 256. */
  publishWindow?: number;
  /** Wait for one PubAck; default 5 s. */
  publishTimeoutMs?: number;
  /** How long one `append` keeps retrying through connection loss; default 60 s. */
  appendTimeoutMs?: number;
  /** Anything else for `connect` (user/pass, token, authenticator, tls, reconnect policy, name). */
  connection?: Omit<NodeConnectionOptions, 'servers'>;
}

/** Options with every default filled in. */
export type ResolvedOptions = Required<Omit<JetStreamLogOptions, 'servers' | 'connection'>>;

/** Fills in the defaults. */
export function resolveOptions(o: Omit<JetStreamLogOptions, 'servers'>): ResolvedOptions {
  return {
    streamName: o.streamName ?? 'EVALOG',
    subjectPrefix: o.subjectPrefix ?? 'evalog',
    blobBucket: o.blobBucket ?? 'evalog-blobs',
    lockBucket: o.lockBucket ?? 'evalog-writers',
    writerLeaseMs: o.writerLeaseMs ?? 60_000,
    // Ten minutes keeps the server's per-id memory small; the known-id index covers older ids.
    duplicateWindowMs: o.duplicateWindowMs ?? 10 * 60_000,
    publishWindow: o.publishWindow ?? 256,
    publishTimeoutMs: o.publishTimeoutMs ?? 5_000,
    appendTimeoutMs: o.appendTimeoutMs ?? 60_000,
  };
}

/** Connection defaults for a log: reconnect forever and quickly, since appends wait for it. */
export const CONNECTION_DEFAULTS: Omit<NodeConnectionOptions, 'servers'> = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 250,
  // An async trace captures a stack for every request: a third of the CPU of publishing.
  noAsyncTraces: true,
  name: 'evalog',
};

/**
 * Reaches the JetStream API, creates the log's stream if absent and checks that an existing one
 * fits; each request retries through a restarting server as appends do (see retry.ts).
 */
export async function openStream(ctx: RetryContext, o: ResolvedOptions, subjects: Subjects): Promise<{ jsm: JetStreamManager; info: StreamInfo }> {
  const jsm = await retrying(ctx, 'reaching the JetStream API', () => jetstreamManager(ctx.nc));
  let info = await retrying(ctx, `opening stream ${o.streamName}`, () => streamInfo(jsm, o.streamName));
  if (!info) {
    const config = {
      name: o.streamName,
      subjects: [subjects.all],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: o.duplicateWindowMs * 1_000_000,
      // An event log is append-only: no single event may be removed (whole-run purges stay possible).
      deny_delete: true,
      num_replicas: 1,
    };
    // A retry of an add whose answer was lost, or a stream another process created between our
    // info and add, shows up in the info that follows a failed add.
    info = await retrying(ctx, `creating stream ${o.streamName}`, async () => {
      try {
        return await jsm.streams.add(config);
      } catch (e) {
        const existing = await streamInfo(jsm, o.streamName);
        if (existing) return existing;
        throw e;
      }
    });
  }
  if (!info.config.subjects?.includes(subjects.all)) {
    throw new StreamConfigError(o.streamName, `captures ${JSON.stringify(info.config.subjects)}, not ${subjects.all}`);
  }
  if (info.config.storage !== StorageType.File) throw new StreamConfigError(o.streamName, `uses ${info.config.storage} storage, not file`);
  return { jsm, info };
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound) return null;
    throw e;
  }
}

// Options of the JetStream log, their defaults, and the stream it writes to.
import { JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import type { NodeConnectionOptions } from '@nats-io/transport-node';
import { StreamConfigError } from './errors.js';
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

/** Creates the log's stream if absent, and checks that an existing one fits. */
export async function ensureStream(jsm: JetStreamManager, o: ResolvedOptions, subjects: Subjects): Promise<StreamInfo> {
  let info = await streamInfo(jsm, o.streamName);
  if (!info) {
    try {
      info = await jsm.streams.add({
        name: o.streamName,
        subjects: [subjects.all],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
        duplicate_window: o.duplicateWindowMs * 1_000_000,
        // An event log is append-only: no single event may be removed (whole-run purges stay possible).
        deny_delete: true,
        num_replicas: 1,
      });
    } catch (e) {
      // Another process may have created it between our info and add.
      info = await streamInfo(jsm, o.streamName);
      if (!info) throw e;
    }
  }
  if (!info.config.subjects?.includes(subjects.all)) {
    throw new StreamConfigError(o.streamName, `captures ${JSON.stringify(info.config.subjects)}, not ${subjects.all}`);
  }
  if (info.config.storage !== StorageType.File) throw new StreamConfigError(o.streamName, `uses ${info.config.storage} storage, not file`);
  return info;
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | null> {
  try {
    return await jsm.streams.info(name);
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound) return null;
    throw e;
  }
}

// The job queue of scaled-out runs: a JetStream work-queue stream `EVALOG_JOBS` on
// `<prefix>.jobs.<suite>.<runId>`, one message per job, and one shared durable pull consumer per
// suite (a work-queue stream refuses overlapping consumers, so suites get disjoint filters).
// The message is only a pointer: the job's plan lives in the run's RunStarted, its progress in
// the event log. The consumer's ack wait is the lease: a worker keeps it with in-progress
// acknowledgements; when they stop, JetStream redelivers the job to another worker.
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { headers, nanos, type NatsConnection } from '@nats-io/transport-node';

/** What a job message carries. */
export interface JobMessage {
  runId: string;
  jobId: string;
}

/** A job message whose payload is not a job pointer (written by something else). */
export class BadJobMessageError extends Error {
  override name = 'BadJobMessageError';
  constructor(subject: string, detail: string) {
    super(`job message on ${subject} is not {runId, jobId}: ${detail}`);
  }
}

/** Settings of the queue; the lease is the consumer's ack wait. */
export interface JobQueueOptions {
  /** Default `EVALOG_JOBS`. */
  streamName?: string;
  /** Default `evalog`, as the log's. */
  subjectPrefix?: string;
  /** How long a job stays with a worker that stopped sending progress; default 30 s. */
  leaseMs?: number;
}

const SUITE = /^[A-Za-z0-9_-]+$/;

/** The work-queue stream and its per-suite consumers. */
export class JobQueue {
  readonly stream: string;
  readonly prefix: string;
  readonly leaseMs: number;
  private readonly consumers = new Map<string, Promise<Consumer>>();

  private constructor(
    private readonly jsm: JetStreamManager,
    private readonly js: JetStreamClient,
    o: JobQueueOptions,
  ) {
    this.stream = o.streamName ?? 'EVALOG_JOBS';
    this.prefix = o.subjectPrefix ?? 'evalog';
    this.leaseMs = o.leaseMs ?? 30_000;
  }

  /** Opens the queue on a connection, creating its stream if absent. */
  static async open(nc: NatsConnection, o: JobQueueOptions = {}): Promise<JobQueue> {
    const q = new JobQueue(await jetstreamManager(nc), jetstream(nc), o);
    await q.ensureStream();
    return q;
  }

  private async ensureStream(): Promise<void> {
    try {
      await this.jsm.streams.info(this.stream);
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound)) throw e;
      await this.jsm.streams
        .add({
          name: this.stream,
          subjects: [`${this.prefix}.jobs.>`],
          retention: RetentionPolicy.Workqueue,
          storage: StorageType.File,
          // Re-publishing a run's jobs (a resumed coordinator) within this window stores nothing new;
          // later repeats are harmless: a worker finds the job finished in the log and acknowledges.
          duplicate_window: nanos(10 * 60_000),
          num_replicas: 1,
        })
        .catch(async (err: unknown) => {
          // Another process created it between our info and add.
          await this.jsm.streams.info(this.stream).catch(() => Promise.reject(err));
        });
    }
  }

  /** Subject of a run's jobs. */
  subject(suite: string, runId: string): string {
    if (!SUITE.test(suite)) throw new BadJobMessageError(suite, 'suite names must be one subject token');
    return `${this.prefix}.jobs.${suite}.${runId}`;
  }

  /** Publishes jobs in the given order; a job already queued (same run and id) is not queued twice. */
  async publish(suite: string, runId: string, jobIds: readonly string[]): Promise<void> {
    const subject = this.subject(suite, runId);
    // Sequential awaits keep the queue in plan order, which is the order workers take jobs in.
    for (const jobId of jobIds) {
      const h = headers();
      h.set('Nats-Msg-Id', `${runId}/${jobId}`);
      await this.js.publish(subject, JSON.stringify({ runId, jobId } satisfies JobMessage), { headers: h });
    }
  }

  /** The shared durable consumer of one suite's jobs, created on first use. */
  consumer(suite: string): Promise<Consumer> {
    let c = this.consumers.get(suite);
    if (!c) {
      c = this.openConsumer(suite);
      c.catch(() => this.consumers.delete(suite));
      this.consumers.set(suite, c);
    }
    return c;
  }

  private async openConsumer(suite: string): Promise<Consumer> {
    const durable = `evalog-workers-${suite}`;
    const config = {
      durable_name: durable,
      filter_subject: `${this.prefix}.jobs.${suite}.>`,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(this.leaseMs),
      max_deliver: -1,
      max_ack_pending: -1,
    };
    try {
      const info = await this.jsm.consumers.info(this.stream, durable);
      // The first worker sets the lease; a worker asking for another one updates it for all.
      if (info.config.ack_wait !== config.ack_wait) await this.jsm.consumers.update(this.stream, durable, { ack_wait: config.ack_wait });
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.ConsumerNotFound)) throw e;
      await this.jsm.consumers.add(this.stream, config).catch(async (err: unknown) => {
        await this.jsm.consumers.info(this.stream, durable).catch(() => Promise.reject(err));
      });
    }
    return this.js.consumers.get(this.stream, durable);
  }

  /** Jobs waiting and jobs held by workers (delivered, not yet acknowledged) of one suite. */
  async pending(suite: string): Promise<{ waiting: number; held: number }> {
    const info = await (await this.consumer(suite)).info(true);
    return { waiting: info.num_pending, held: info.num_ack_pending };
  }
}

/** Parses a job message; throws BadJobMessageError for anything else. */
export function jobMessageOf(msg: JsMsg): JobMessage {
  let v: unknown;
  try {
    v = msg.json();
  } catch (e) {
    throw new BadJobMessageError(msg.subject, (e as Error).message);
  }
  const o = v as Partial<JobMessage> | null;
  if (!o || typeof o.runId !== 'string' || typeof o.jobId !== 'string') throw new BadJobMessageError(msg.subject, JSON.stringify(v).slice(0, 120));
  return { runId: o.runId, jobId: o.jobId };
}

// The coordinator's side of a scaled-out run: a job is "run" by queueing its pointer and waiting
// for its end to appear in the log. One subscription to the run's events serves every waiting job.
import type { PlannedJob, StoredEvent } from '../../../events/index.js';
import type { EventLog } from '../../../log/index.js';
import type { JobOutput, RemoteJobs } from '../../kernel/env.js';
import { RunInterrupted } from '../../kernel/errors.js';
import type { JobQueue } from './queue.js';

type Status = JobOutput['status'];

/** Jobs run by workers that share the queue. */
export class QueuedJobs implements RemoteJobs {
  /** Every job may be queued at once: the workers' own concurrency bounds what runs. */
  readonly window = Number.MAX_SAFE_INTEGER;
  private readonly ended = new Map<string, Status>();
  private readonly waiters = new Map<string, { resolve: (s: Status) => void; reject: (e: unknown) => void }>();
  private readonly follow = new AbortController();
  private ready!: Promise<void>;
  private following: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: EventLog,
    private readonly queue: JobQueue,
    private readonly runId: string,
    private readonly suite: string,
  ) {}

  /** Reads what the log already holds (a resumed run), then follows it live. */
  start(): this {
    let last = 0;
    this.ready = (async () => {
      for await (const e of this.log.read(this.runId)) {
        last = e.seq;
        this.see(e);
      }
    })();
    this.following = this.ready.then(async () => {
      for await (const e of this.log.subscribe(this.runId, { from: last + 1, signal: this.follow.signal })) this.see(e);
    });
    // A failed subscription leaves waiters waiting; surface it through them instead.
    this.following.catch((e: unknown) => this.failAll(e));
    return this;
  }

  async run(job: PlannedJob, signal: AbortSignal): Promise<JobOutput> {
    await this.ready;
    const known = this.ended.get(job.jobId);
    if (known) return { jobId: job.jobId, status: known };
    if (this.failure) throw this.failure.error;
    const status = new Promise<Status>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(job.jobId);
        reject(new RunInterrupted());
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => signal.removeEventListener('abort', onAbort);
      this.waiters.set(job.jobId, {
        resolve: (s) => {
          done();
          resolve(s);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
    });
    await this.queue.publish(this.suite, this.runId, [job.jobId]);
    return { jobId: job.jobId, status: await status };
  }

  /** Ends the subscription. */
  async stop(): Promise<void> {
    this.follow.abort();
    await this.following.catch(() => undefined);
  }

  private see(e: StoredEvent): void {
    if (e.jobId === undefined) return; // the run's own events are the coordinator's journal's
    const status: Status | null = e.type === 'JobSucceeded' ? 'succeeded' : e.type === 'JobFailed' ? 'failed' : null;
    if (!status || this.ended.has(e.jobId)) return;
    this.ended.set(e.jobId, status);
    const wake = this.waiters.get(e.jobId);
    this.waiters.delete(e.jobId);
    wake?.resolve(status);
  }

  // Following the log failed for good (closed, unreachable past the retries): no job can end now.
  private failAll(error: unknown): void {
    this.failure = { error };
    for (const [jobId, w] of this.waiters) {
      this.waiters.delete(jobId);
      w.reject(error);
    }
  }

  private failure: { error: unknown } | undefined;
}

// A worker process's loop: `concurrency` slots pull job pointers from the suites' shared
// consumers, run each job with the same actors as an embedded run (see run-job.ts), keep the
// job's lease alive with in-progress acknowledgements while it runs, and acknowledge at its end.
// Shutdown (the stop signal) takes no new job, gives running ones `graceMs` to finish, then
// aborts them (their calls are recorded as aborted) and hands them back with a nak.
import { lazyGateway } from '../../external/gateway-lease.js';
import { AGENTS_KEY, agentChanges, type AgentRecord } from '../../external/provenance.js';
import type { JsMsg } from '@nats-io/jetstream';
import { RUN_SCOPE } from '../../../events/index.js';
import type { EventLog } from '../../../log/index.js';
import type { Sleep } from '../../kernel/env.js';
import type { ModelCaller } from '../../../providers/caller.js';
import type { DefinedSuite } from '../../suite/define.js';
import { prepareRecorded } from '../launch.js';
import type { Clock } from '../../../core/clock.js';
import { UserError } from '../../../core/errors.js';
import { jobMessageOf, type JobQueue } from './queue.js';
import { recordCrash, runJob, type JobResult, type RunContext } from './run-job.js';

/** Something a worker did, for its log lines and for tests. */
export type WorkerActivity =
  | { kind: 'took'; runId: string; jobId: string; delivery: number }
  | { kind: 'ended'; runId: string; jobId: string; result: JobResult }
  | { kind: 'refused'; runId: string; jobId: string; reason: string }
  | { kind: 'error'; runId: string | null; jobId: string | null; error: unknown }
  /** The job crashed this many deliveries in a row: recorded as failed (reason `error`) and acknowledged. */
  | { kind: 'gave-up'; runId: string; jobId: string; deliveries: number };

/** Decides whether this worker can call the run's model, and with which caller. */
export type CallerFor = (started: RunContext['started']) => Promise<ModelCaller | { refuse: string }>;

/** What a worker needs. */
export interface WorkerOptions {
  log: EventLog;
  queue: JobQueue;
  /** This worker's identity, recorded in every claim. */
  id: string;
  concurrency: number;
  /** Suites whose jobs this worker takes. */
  suites: readonly string[];
  /** The run's suite; given the run's start, so a suite loaded from a file can be checked against what the run recorded (a rejection refuses the run). */
  suiteOf: (name: string, started: RunContext['started']) => DefinedSuite | undefined | Promise<DefinedSuite | undefined>;
  callerFor: CallerFor;
  clock: Clock;
  sleep: Sleep;
  /** Aborting it starts the shutdown: no new jobs; running ones get `graceMs`, then are handed back. */
  stop: AbortSignal;
  graceMs: number;
  report?: (a: WorkerActivity) => void;
}

// How long one pull waits for a job before the slot tries the next suite (and sees a stop).
const PULL_MS = 1_000;
// A job that crashes its worker this many deliveries in a row is recorded as failed rather than
// handed round forever; a crash may be a passing fault (the log unreachable), so not at once.
const CRASH_DELIVERIES = 3;
// A job this worker cannot run comes back to the queue after this pause, for another worker.
const REFUSED_DELAY_MS = 5_000;

/** A pool of job slots sharing the queue with every other worker. */
export class Worker {
  private readonly contexts = new Map<string, Promise<RunContext | { refuse: string }>>();
  private readonly running = new Set<AbortController>();
  private readonly hardStop = new AbortController();
  /** This worker's own proxy and MCP endpoint for external-agent jobs, opened by the first one. */
  private readonly gateway = lazyGateway();

  constructor(private readonly o: WorkerOptions) {}

  /** Runs until the stop signal and every running job has ended. */
  async run(): Promise<void> {
    const { stop, graceMs } = this.o;
    const onStop = () => setTimeout(() => this.hardStop.abort(), graceMs).unref();
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
    this.hardStop.signal.addEventListener(
      'abort',
      () => {
        for (const c of this.running) c.abort();
      },
      { once: true },
    );
    try {
      await Promise.all(Array.from({ length: this.o.concurrency }, (_, i) => this.slot(i)));
    } finally {
      await this.gateway.close();
    }
  }

  private async slot(i: number): Promise<void> {
    const { suites, stop } = this.o;
    for (let turn = i; !stop.aborted; turn += 1) {
      const suite = suites[turn % suites.length]!;
      let msg: JsMsg | null = null;
      try {
        msg = await (await this.o.queue.consumer(suite)).next({ expires: PULL_MS });
      } catch (error) {
        // A restarting server or a lost connection: wait and pull again.
        this.o.report?.({ kind: 'error', runId: null, jobId: null, error });
        await this.o.sleep(500, stop);
        continue;
      }
      if (!msg) continue;
      if (stop.aborted) {
        msg.nak();
        break;
      }
      // A slot that handed a job back sits out until the job is back in the queue and another
      // worker's pull has taken it. Pulling again at once, its pulls would expire and renew in step
      // with the delay (a multiple of PULL_MS), so one would be the oldest waiting each time the
      // job came back: the job went to it again and again, and a worker that can run it starved.
      if ((await this.handle(msg)) === 'handed-back') await this.o.sleep(REFUSED_DELAY_MS + PULL_MS, stop);
    }
  }

  private async handle(msg: JsMsg): Promise<'handed-back' | undefined> {
    let ptr: { runId: string; jobId: string };
    try {
      ptr = jobMessageOf(msg);
    } catch (error) {
      this.o.report?.({ kind: 'error', runId: null, jobId: null, error });
      msg.term();
      return;
    }
    const { runId, jobId } = ptr;
    let ctx: RunContext | undefined;
    // Progress acknowledgements keep the lease; a worker that stops sending them loses the job.
    const keepAlive = setInterval(() => msg.working(), Math.max(100, Math.floor(this.o.queue.leaseMs / 3)));
    const abort = new AbortController();
    this.running.add(abort);
    try {
      const loaded = await this.context(runId);
      if ('refuse' in loaded) return this.refuse(msg, runId, jobId, loaded.refuse);
      ctx = loaded;
      const job = ctx.jobs.get(jobId);
      if (!job) return this.refuse(msg, runId, jobId, `run ${runId} plans no job ${jobId}`, true);
      const caller = await this.o.callerFor(ctx.started);
      if ('refuse' in caller) return this.refuse(msg, runId, jobId, caller.refuse);
      const delivery = msg.info.deliveryCount;
      this.o.report?.({ kind: 'took', runId, jobId, delivery });
      const result = await runJob({
        log: this.o.log,
        ctx,
        job,
        writer: this.o.id,
        delivery,
        caller,
        clock: this.o.clock,
        sleep: this.o.sleep,
        signal: abort.signal,
        gateway: this.gateway.get,
      });
      this.o.report?.({ kind: 'ended', runId, jobId, result });
      if (result.kind === 'ran' || result.kind === 'finished-before') await msg.ackAck().catch(() => msg.ack());
      else if (result.kind === 'interrupted') msg.nak();
      // 'lost': the job's current delivery belongs to its new holder; acknowledging would end it.
    } catch (error) {
      this.o.report?.({ kind: 'error', runId, jobId, error });
      await this.crashed(msg, ctx, jobId, error);
    } finally {
      clearInterval(keepAlive);
      this.running.delete(abort);
    }
  }

  // A bug or a log failure: hand the job back after a growing pause, and after CRASH_DELIVERIES
  // record it as failed, so the run can complete and show the error instead of waiting forever.
  private async crashed(msg: JsMsg, ctx: RunContext | undefined, jobId: string, error: unknown): Promise<void> {
    const deliveries = msg.info.deliveryCount;
    const job = ctx?.jobs.get(jobId);
    if (ctx && job && deliveries >= CRASH_DELIVERIES) {
      try {
        await recordCrash({ log: this.o.log, ctx, job, writer: this.o.id, clock: this.o.clock }, deliveries, error);
        this.o.report?.({ kind: 'gave-up', runId: ctx.runId, jobId, deliveries });
        msg.ack();
        return;
      } catch (e) {
        this.o.report?.({ kind: 'error', runId: ctx.runId, jobId, error: e });
      }
    }
    msg.nak(Math.min(30_000, 1_000 * 2 ** (deliveries - 1)));
  }

  private refuse(msg: JsMsg, runId: string, jobId: string, reason: string, drop = false): 'handed-back' | undefined {
    this.o.report?.({ kind: 'refused', runId, jobId, reason });
    // Another worker may be able to run it (another model, suite or version); a pointer to a job
    // its run does not plan can never run anywhere.
    if (drop) {
      msg.term(reason);
      return undefined;
    }
    msg.nak(REFUSED_DELAY_MS);
    return 'handed-back';
  }

  /** The run's plan and suite, loaded once per run. */
  private context(runId: string): Promise<RunContext | { refuse: string }> {
    let c = this.contexts.get(runId);
    if (!c) {
      c = this.loadContext(runId);
      this.contexts.set(runId, c);
      // A failed load (the RunStarted not visible yet, a log error) is tried again next time.
      c.then(
        (v) => 'refuse' in v && this.contexts.delete(runId),
        () => this.contexts.delete(runId),
      );
    }
    return c;
  }

  private async loadContext(runId: string): Promise<RunContext | { refuse: string }> {
    let started: RunContext['started'] | null = null;
    for await (const e of this.o.log.read(runId, { jobId: RUN_SCOPE })) {
      if (e.type === 'RunStarted') {
        started = e.data;
        break;
      }
    }
    if (!started) return { refuse: `run ${runId} has no RunStarted in the log` };
    let suite: DefinedSuite | undefined;
    try {
      suite = await this.o.suiteOf(started.suite, started);
    } catch (e) {
      // Bad input (a suite file changed since the run started) refuses the run; a bug stays a crash.
      if (!(e instanceof UserError)) throw e;
      return { refuse: e.message };
    }
    if (!suite) return { refuse: `this worker does not know suite ${JSON.stringify(started.suite)}` };
    let prepared: RunContext['suite'];
    try {
      prepared = await prepareRecorded(suite, started);
    } catch (e) {
      return { refuse: `cannot load the cases of run ${runId}: ${(e as Error).message}` };
    }
    // An external agent this worker cannot start as the run recorded it (program missing, a file
    // changed) is another worker's to run, as a model this worker cannot call is.
    const agents = await agentChanges(prepared.config, started.provenance[AGENTS_KEY] as Record<string, AgentRecord> | undefined);
    if (agents.length > 0) return { refuse: agents.join('; ') };
    return { runId, started, suite: prepared, jobs: new Map(started.jobs.map((j) => [j.jobId, j])) };
  }
}

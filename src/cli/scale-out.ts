// `--workers` of run and resume: who runs a NATS run's jobs. inline = this process's actors, as
// in an embedded run; N = a pool of N job slots in this process pulling from the shared job queue
// (other machines' `evalog worker`s may join); external = this process only queues jobs and waits.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { realSleep } from '../harness/kernel/env.js';
import { systemClock } from '../core/clock.js';
import type { ModelEndpoint } from '../harness/endpoint/endpoint.js';
import type { QueuedJobs, WorkerActivity } from '../harness/orchestration/scale-out/index.js';
import { suiteOfRun, type DefinedSuite, type WorkersMode } from '../app/index.js';
import type { Player } from '../providers/scripted/index.js';
import { InputError, type CliIO, intFlag } from './io.js';

/** The `--workers` and `--lease` flags. */
export const workersOptions = { workers: { type: 'string' }, lease: { type: 'string' } } as const;

/** Help lines for them. */
export const WORKERS_HELP = `  --workers MODE        with --nats: inline (default: this process runs the jobs), N (queue the
                        jobs and run N of them at once here; evalog workers elsewhere may join),
                        or external (only queue them and wait for evalog worker processes)
  --lease SECONDS       how long a queued job stays with a worker that went silent (default 30)`;

/** Who runs the jobs (the suite contract's type). */
export type { WorkersMode } from '../harness/suite/index.js';

/** Parses `--workers`; anything but inline needs NATS. */
export function workersMode(command: string, value: string | undefined, nats: boolean): WorkersMode {
  if (value === undefined || value === 'inline') return 'inline';
  const mode: WorkersMode = value === 'external' ? 'external' : { pool: intFlag(command, 'workers', value, 1, 1, 1024) };
  if (!nats) throw new InputError(`evalog ${command}: --workers ${value} needs --nats (workers share jobs through JetStream)`);
  return mode;
}

/** A unique worker identity: host, pid and a nonce (a pid may come back after a restart). */
export function workerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** One line per worker activity, for the worker's own stderr. */
export function activityLine(id: string, a: WorkerActivity): string | null {
  switch (a.kind) {
    case 'took':
      return `evalog worker ${id}: took ${a.runId} ${a.jobId}${a.delivery > 1 ? ` (delivery ${a.delivery})` : ''}`;
    case 'ended': {
      const r = a.result;
      const how =
        r.kind === 'ran'
          ? `${r.status}${r.resumedAfter > 0 ? ` (resumed after ${r.resumedAfter} events)` : ''}`
          : r.kind === 'finished-before'
            ? 'already finished'
            : r.kind === 'lost'
              ? 'lost to another worker (its late events were refused)'
              : 'handed back';
      return `evalog worker ${id}: ${a.runId} ${a.jobId} ${how}`;
    }
    case 'refused':
      return `evalog worker ${id}: cannot run ${a.runId} ${a.jobId}: ${a.reason}`;
    case 'gave-up':
      return `evalog worker ${id}: ${a.runId} ${a.jobId} crashed on ${a.deliveries} deliveries: recorded as failed (reason error)`;
    case 'error':
      return `evalog worker ${id}: ${a.jobId ? `${a.runId} ${a.jobId}: ` : ''}${(a.error as Error)?.message ?? String(a.error)}`;
    default:
      return null;
  }
}

/** What a run's scale-out holds open while the run goes on. */
export interface ScaleOut {
  remote?: QueuedJobs;
  finish(): Promise<void>;
}

/**
 * Starts the queue side (and the in-process pool) of a scaled-out run of suite `of.name` (played by
 * `of.players`; `of.suite` is the suite bound to its inputs, as a suite's binding binds them); inline starts nothing.
 */
export async function startScaleOut(
  command: string,
  mode: WorkersMode,
  log: JetStreamEventLog | null,
  runId: string,
  of: { name: string; players: readonly Player[]; suite?: DefinedSuite | undefined },
  endpoint: ModelEndpoint,
  io: CliIO,
  leaseFlag: string | undefined,
): Promise<ScaleOut> {
  if (mode === 'inline' || !log) return { finish: async () => {} };
  // The queue and the pool (JetStream's consumers) are loaded by a scaled-out run alone.
  const { JobQueue, QueuedJobs, Worker, workerCallers } = await import('../harness/orchestration/scale-out/index.js');
  const suite = of.name;
  const leaseMs = intFlag(command, 'lease', leaseFlag, 30, 1, 86_400) * 1000;
  const queue = await JobQueue.open(log.nc, { leaseMs });
  const remote = new QueuedJobs(log, queue, runId, suite).start();
  if (mode === 'external') {
    io.stderr.write(`evalog: jobs of ${runId} are queued on ${queue.stream}; start workers with: evalog worker --nats URL --suite ${suite}\n`);
    return { remote, finish: () => remote.stop() };
  }
  const stop = new AbortController();
  const id = workerId();
  const callers = workerCallers(endpoint, systemClock, of.players);
  // The pool checks the run's suite file like any worker (this process's cwd is the run's); a bound suite is the run's own.
  const worker = new Worker({
    log,
    queue,
    id,
    concurrency: mode.pool,
    suites: [suite],
    suiteOf: async (name, started) => (of.suite && name === of.suite.name ? of.suite : (await suiteOfRun(started, io.cwd))?.suite),
    callerFor: callers.callerFor,
    clock: systemClock,
    sleep: realSleep,
    stop: stop.signal,
    graceMs: 0,
    report: (a) => {
      if (a.kind === 'refused' || a.kind === 'error' || a.kind === 'gave-up') io.stderr.write(`${activityLine(id, a)}\n`);
    },
  });
  // The run's own interrupt stops the pool at once; its jobs are then resumable like any other.
  const onAbort = () => stop.abort();
  io.signal?.addEventListener('abort', onAbort, { once: true });
  const done = worker.run();
  return {
    remote,
    async finish() {
      io.signal?.removeEventListener('abort', onAbort);
      stop.abort();
      await done;
      await callers.close();
      await remote.stop();
    },
  };
}

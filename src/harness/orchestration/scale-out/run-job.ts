// One job taken from the queue: claim it in the log, then run (or resume) it with the same actors
// as an embedded run. The claim is a fenced append after the last event the worker read; every
// later event of the job is fenced on the one before. So once a new holder's claim is stored, the
// previous holder's next append is refused (FencedOffError) and it stops: its late events never
// reach the log, and no projection needs a rule to ignore them.
import { buildEvent, eventId, type DataOf, type EvalogEvent, type PlannedJob, type StoredEvent } from '../../../events/index.js';
import { FencedOffError, type EventLog } from '../../../log/index.js';
import type { Sleep } from '../../kernel/env.js';
import type { AgentGateway } from '../../kernel/agent-gateway.js';
import { runJobActor } from '../../run/jobs.js';
import type { ModelCaller } from '../../../providers/caller.js';
import type { PreparedSuite } from '../../suite/define.js';
import { jobJournal } from '../../kernel/ports.js';
import { isoOf, type Clock } from '../../../core/clock.js';
import { RunInterrupted } from '../../kernel/errors.js';
import { Journal } from '../../kernel/journal.js';

/** What every job of a run needs, loaded once per run by a worker. */
export interface RunContext {
  runId: string;
  started: DataOf<'RunStarted'>;
  /** The run's suite, prepared from its recorded config. */
  suite: PreparedSuite;
  jobs: ReadonlyMap<string, PlannedJob>;
}

/** How a taken job ended for this worker. */
export type JobResult =
  | { kind: 'ran'; status: 'succeeded' | 'failed'; resumedAfter: number }
  /** The log already held the job's end (a redelivery after the holder finished): nothing ran. */
  | { kind: 'finished-before' }
  /** Another worker claimed the job meanwhile; this one stopped writing for it. */
  | { kind: 'lost' }
  /** Stopped by this worker's shutdown; the job is to be handed back. */
  | { kind: 'interrupted' };

/** What running one job needs from the worker. */
export interface RunJobOptions {
  log: EventLog;
  ctx: RunContext;
  job: PlannedJob;
  /** This worker's identity: the claim's writer and the dedup key of its fenced appends. */
  writer: string;
  delivery: number;
  caller: ModelCaller;
  clock: Clock;
  sleep: Sleep;
  signal: AbortSignal;
  /** The worker's agent gateway, for external-agent jobs. */
  gateway?: () => Promise<AgentGateway>;
}

const TERMINAL = new Set(['JobSucceeded', 'JobFailed']);
const CLAIM_ATTEMPTS = 5;

/** Reads a job's events; true in `finished` when its end is already recorded. */
export async function readJob(log: EventLog, runId: string, jobId: string): Promise<{ events: StoredEvent[]; finished: boolean }> {
  const events: StoredEvent[] = [];
  for await (const e of log.read(runId, { jobId })) events.push(e);
  return { events, finished: events.some((e) => TERMINAL.has(e.type)) };
}

/** Claims the job, then runs it to its end (resuming from its recorded events). */
export async function runJob(o: RunJobOptions): Promise<JobResult> {
  const { log, ctx, job, writer } = o;
  let claimed: { events: StoredEvent[]; afterSeq: number } | null = null;
  for (let attempt = 1; !claimed; attempt += 1) {
    const { events, finished } = await readJob(log, ctx.runId, job.jobId);
    if (finished) return { kind: 'finished-before' };
    const afterSeq = events.at(-1)?.seq ?? 0;
    try {
      const r = await log.appendAfter(claimEvent(o, events, attempt), { afterSeq, writer });
      claimed = { events, afterSeq: r.seq };
    } catch (e) {
      // The previous holder wrote between our read and our claim: it is still alive. Read again;
      // our next claim lands after its event and fences it off from then on.
      if (!(e instanceof FencedOffError) || attempt >= CLAIM_ATTEMPTS) throw e;
      await o.sleep(100 * attempt, o.signal);
    }
  }
  const resumedAfter = claimed.events.filter((e) => e.type !== 'JobClaimed').length;
  const journal = Journal.resume(log, ctx.runId, new Map([[job.jobId, claimed.events]]), {
    clock: o.clock,
    fence: { writer, afterSeq: new Map([[job.jobId, claimed.afterSeq]]) },
  });
  const { config } = ctx.suite;
  const provider = {
    caller: o.caller,
    model: ctx.started.model.name,
    sampling: config.model,
    seed: job.seed,
    policy: config.provider,
    sleep: o.sleep,
    signal: o.signal,
    // The run's recorded pass-through protocols: a worker sends what the run's first pass would.
    ...(ctx.started.model.protocols ? { passThrough: ctx.started.model.protocols } : {}),
  };
  try {
    const out = await runJobActor({
      job,
      journal: jobJournal(journal, job.jobId),
      provider,
      hooks: ctx.suite.hooks(job),
      limits: config.worker,
      ...(o.gateway ? { gateway: o.gateway } : {}),
    });
    return { kind: 'ran', status: out.status, resumedAfter };
  } catch (e) {
    if (causedBy(e, FencedOffError)) return { kind: 'lost' };
    if (causedBy(e, RunInterrupted)) return { kind: 'interrupted' };
    throw e;
  }
}

function claimEvent(o: RunJobOptions, events: readonly StoredEvent[], attempt: number): EvalogEvent {
  const { ctx, job, writer, delivery } = o;
  return buildEvent({
    // Unique per claim attempt, so no claim is ever taken for a duplicate of another.
    id: `${ctx.runId}/${job.jobId}/claim/${writer}/${delivery}/${attempt}`,
    runId: ctx.runId,
    jobId: job.jobId,
    type: 'JobClaimed',
    at: isoOf(o.clock.now()),
    actor: `worker/${writer}`,
    data: { worker: writer, delivery, resumedAfter: events.filter((e) => e.type !== 'JobClaimed').length },
  });
}

/**
 * Records that a job crashed the workers that took it (a bug, not a recorded provider failure) as
 * its end, `JobFailed` with reason `error`, fenced like any append; false when another worker holds
 * the job or its end is recorded already. The run then completes with the failure in its rows.
 */
export async function recordCrash(o: Pick<RunJobOptions, 'log' | 'ctx' | 'job' | 'writer' | 'clock'>, deliveries: number, error: unknown): Promise<boolean> {
  const { log, ctx, job, writer } = o;
  const { events, finished } = await readJob(log, ctx.runId, job.jobId);
  if (finished) return false;
  const n = events.filter((e) => e.type !== 'JobClaimed').length + 1;
  const message = `the job crashed the worker on ${deliveries} deliveries; last error: ${(error as Error)?.message ?? String(error)}`;
  try {
    await log.appendAfter(
      buildEvent({
        id: eventId(ctx.runId, job.jobId, n),
        runId: ctx.runId,
        jobId: job.jobId,
        type: 'JobFailed',
        at: isoOf(o.clock.now()),
        actor: `worker/${writer}`,
        data: { reason: 'error', message: message.slice(0, 2000) },
      }),
      { afterSeq: events.at(-1)?.seq ?? 0, writer },
    );
    return true;
  } catch (e) {
    if (e instanceof FencedOffError) return false;
    throw e;
  }
}

/** True when `e`, one of its causes, or one of its aggregated errors is an instance of `type`. */
export function causedBy(e: unknown, type: abstract new (...args: never[]) => Error): boolean {
  const seen = new Set<unknown>();
  const walk = (x: unknown): boolean => {
    if (!x || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    if (x instanceof type) return true;
    const errors = (x as { errors?: unknown }).errors;
    return walk((x as { cause?: unknown }).cause) || (Array.isArray(errors) && errors.some(walk));
  };
  return walk(e);
}

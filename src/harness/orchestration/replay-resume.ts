import type { StoredEvent } from '../../events/index.js';
import { BlobChecker, type EventLog } from '../../log/index.js';
import { JobsCrashedError } from '../run/machine.js';
import type { RunOutput } from '../run/machine.js';
import type { DefinedSuite, SuiteLookup } from '../suite/define.js';
import { systemClock } from '../../core/clock.js';
import type { ModelEndpoint } from '../endpoint/endpoint.js';
import { DeterminismViolation, EndOfRecording } from '../kernel/errors.js';
import { Journal } from '../kernel/journal.js';
import { AgentDivergedError } from '../external/recorder.js';
import { AGENTS_KEY, agentChanges, type AgentRecord } from '../external/provenance.js';
import type { SuiteConfigBase } from '../suite/types.js';
import { executeRun, prepareRecorded, type ExecuteOptions } from './launch.js';
import { manifestHashes } from './provenance.js';
import { replayCaller } from '../provider/refusing-caller.js';
import { loadRecording, type Recording } from './recording.js';
import { inLogOrder, passesOf, type RetryPass } from './retry/index.js';

/** Resume refused: something the run depends on changed since it started. */
export class ResumeRefusedError extends Error {
  override name = 'ResumeRefusedError';
  constructor(message: string) {
    super(message);
  }
}

/** The recorded suite is not known to this evalog. */
export class UnknownSuiteError extends Error {
  override name = 'UnknownSuiteError';
  constructor(readonly suite: string) {
    super(`the run's suite ${JSON.stringify(suite)} is not known to this evalog`);
  }
}

/** What replay found; `completed` is false when the log ends before `RunCompleted` (resume finishes it). */
export type ReplayReport =
  | { ok: true; events: number; jobs: number; incompleteJobs: number; completed: boolean }
  | {
      ok: false;
      events: number;
      divergence: {
        seq: number;
        jobId: string | null;
        logged: StoredEvent;
        emitted: unknown;
        fields: readonly string[];
        /** Set when an external agent asked for something other than its record: its request's position and the first differing field. */
        agent?: { index: number; kind: 'model' | 'tool' | 'exit'; field: string; detail: string };
      };
    };

export function suiteFor(rec: Recording, suiteOf: SuiteLookup): DefinedSuite {
  const suite = suiteOf(rec.started.suite);
  if (!suite) throw new UnknownSuiteError(rec.started.suite);
  return suite;
}

/**
 * Re-runs the actors against the recorded effects and compares every emitted event with the
 * logged one. Never calls a model and never appends.
 */
export async function replayRun(log: EventLog, runId: string, suiteOf: SuiteLookup): Promise<ReplayReport> {
  const rec = await loadRecording(log, runId);
  await checkBlobs(log, runId, rec);
  const journal = Journal.replay(log, runId, rec.byScope, { clock: systemClock });
  const leftover = (): ReplayReport | null => {
    const extra = journal.leftovers()[0];
    return extra
      ? {
          ok: false,
          events: rec.events,
          divergence: { seq: extra.seq, jobId: extra.jobId ?? null, logged: extra, emitted: null, fields: ['(the actors emitted no event here)'] },
        }
      : null;
  };
  try {
    const suite = await prepareRecorded(suiteFor(rec, suiteOf), rec.started);
    const out = await executeRun({
      suite,
      log,
      runId,
      started: rec.started,
      endpoint: { scripted: true },
      caller: replayCaller,
      journal,
      sleep: async () => {},
      retries: recordedRetries(rec),
    });
    return leftover() ?? { ok: true, events: rec.events, jobs: rec.started.jobs.length, incompleteJobs: out.progress.incomplete, completed: rec.completed };
  } catch (err) {
    // The run's own record ended (a kill between the last job's end and RunCompleted): every
    // recorded event was compared, so this is an unfinished run, not a divergence.
    if (err instanceof EndOfRecording && err.jobId === undefined) {
      return leftover() ?? { ok: true, events: rec.events, jobs: rec.started.jobs.length, incompleteJobs: unfinishedJobs(rec), completed: false };
    }
    const violations = (err instanceof JobsCrashedError ? err.errors : [err]).filter((e): e is DeterminismViolation => e instanceof DeterminismViolation);
    if (violations.length === 0) throw err;
    const first = violations.reduce((a, b) => (b.logged.seq < a.logged.seq ? b : a));
    return {
      ok: false,
      events: rec.events,
      divergence: {
        seq: first.logged.seq,
        jobId: first.logged.jobId ?? null,
        logged: first.logged,
        emitted: first.emitted,
        fields: first.fields,
        ...(first instanceof AgentDivergedError
          ? { agent: { index: first.index, kind: first.kind, field: first.mismatch.field, detail: first.mismatch.detail }, emitted: null, fields: [] }
          : {}),
      },
    };
  }
}

/** Every blob the recording references is there and intact (BlobDamagedError otherwise). */
export async function checkBlobs(log: EventLog, runId: string, rec: Recording): Promise<void> {
  const checker = new BlobChecker(log.blobs(runId));
  for (const events of rec.byScope.values()) for (const e of events) checker.note(e);
  await checker.verify();
}

const ended = (events: readonly StoredEvent[] | undefined) => events?.some((e) => e.type === 'JobSucceeded' || e.type === 'JobFailed') === true;

/** Planned jobs whose record has no terminal event. */
function unfinishedJobs(rec: Recording): number {
  return rec.started.jobs.filter((j) => !ended(rec.byScope.get(j.jobId))).length;
}

/** Jobs whose terminal event is recorded: a resume replays their end, which the breaker does not count. */
function endedJobs(rec: Recording): Set<string> {
  return new Set(rec.started.jobs.filter((j) => ended(rec.byScope.get(j.jobId))).map((j) => j.jobId));
}

/** Options of `resumeRun`. */
export type ResumeOptions = Pick<ExecuteOptions, 'signal' | 'clock' | 'sleep' | 'scripted' | 'players' | 'remote' | 'cache' | 'window'> & {
  /** Failed jobs in a row that stop the run; the count starts from zero (recorded ends do not count). */
  maxConsecutiveFailures?: number;
  endpoint: ModelEndpoint;
  /** The run's suite by name: the app's registry, or a suite bound to inputs read at start (a study's dataset). */
  suiteOf: SuiteLookup;
};

/**
 * Continues an unfinished run in its own log: replays what is recorded (no completed call is sent
 * again), then goes on live. Refuses when the suite's manifests changed since the run started.
 */
export async function resumeRun(log: EventLog, runId: string, options: ResumeOptions): Promise<RunOutput & { alreadyComplete: boolean }> {
  // The writer lock comes first: a run another process is still writing is refused before any call.
  await log.claimWriter(runId);
  const rec = await loadRecording(log, runId);
  await checkBlobs(log, runId, rec);
  if (rec.completed)
    return { status: 'completed', progress: { queued: 0, running: 0, succeeded: 0, failed: 0, interrupted: 0, incomplete: 0 }, alreadyComplete: true };
  const retries = recordedRetries(rec);
  // Workers elsewhere run a job's first attempt only; a retried run's jobs are resumed here.
  if (options.remote && retries.length > 0)
    throw new ResumeRefusedError(`cannot resume run ${runId} with workers: it was retried; resume it without --workers`);
  const { suiteOf, maxConsecutiveFailures, ...rest } = options;
  await refuseChanged(rec, runId, suiteOf, 'resume');
  const journal = Journal.resume(log, runId, rec.byScope, { clock: rest.clock ?? systemClock });
  const suite = await prepareRecorded(suiteFor(rec, suiteOf), rec.started);
  const breaker = maxConsecutiveFailures ? { breaker: { max: maxConsecutiveFailures, uncounted: endedJobs(rec) } } : {};
  const out = await executeRun({ ...rest, ...breaker, suite, log, runId, started: rec.started, journal, retries });
  return { ...out, alreadyComplete: false };
}

/** The retries the recording holds, re-decided from its events (replay compares each with its RunReopened). */
export function recordedRetries(rec: Recording): RetryPass[] {
  return passesOf(inLogOrder(rec.byScope), rec.started.jobs).passes;
}

/**
 * Refuses (ResumeRefusedError) to go on with a recorded run when what it depends on changed since
 * it started: its suite's manifests, or its external agents' files. `verb` names the command.
 */
export async function refuseChanged(rec: Recording, runId: string, suiteOf: SuiteLookup, verb: 'resume' | 'retry'): Promise<void> {
  // Only the suite's own manifests matter to it; another suite's edits do not block this run.
  const own = (k: string) => k.startsWith(`${rec.started.suite}/`);
  const recordedManifests = (rec.started.provenance.manifests ?? {}) as Record<string, string>;
  const current = manifestHashes(suiteOf(rec.started.suite)?.manifests);
  const changed = Object.keys({ ...recordedManifests, ...current })
    .filter((k) => own(k) && recordedManifests[k] !== current[k])
    .sort();
  if (changed.length > 0) {
    // The suite may name the config fields the change touches (a frozen cell's field, say).
    const fields = suiteOf(rec.started.suite)?.describeConfigChange?.(rec.started.config) ?? [];
    const detail = fields.length > 0 ? `; changed fields: ${fields.join('; ')}` : '';
    throw new ResumeRefusedError(`cannot ${verb} run ${runId}: manifests changed since it started: ${changed.join(', ')}${detail}`);
  }
  const agents = await agentChanges(rec.started.config as SuiteConfigBase, rec.started.provenance[AGENTS_KEY] as Record<string, AgentRecord> | undefined);
  if (agents.length > 0) throw new ResumeRefusedError(`cannot ${verb} run ${runId}: ${agents.join('; ')}`);
}

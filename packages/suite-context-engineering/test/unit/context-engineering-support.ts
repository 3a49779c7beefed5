// Runs the context-engineering suite in process on the scripted model, into a temporary file log,
// with a stepping clock so times (and so the deadline) are a function of the events alone.
import { FileEventLog, rebuild } from 'evalog';
import type { DataOf, EventLog, EventType, RunOutputs, RunResult, StoredEvent } from 'evalog';
import type { ScriptedModelOptions } from 'evalog/testing';
// Engine internals with no public counterpart: the public `run` plays on the system clock through
// its own caller, and these tests need a stepping clock (the deadline as a function of the events),
// a caller of their own and a synchronous look at each stored event.
import { steppingClock } from '../../../../src/core/clock.js';
import { executeRun, planRun } from '../../../../src/harness/orchestration/launch.js';
import type { ModelCaller } from '../../../../src/providers/caller.js';
import { tempDir } from '../../../../test/support/cli.js';
import type { ContextEngineeringConfig } from '../../src/config.js';
import { contextEngineeringPlayer, contextEngineeringSuite, defaultConfig } from '../../src/index.js';

/** The suite as the runtime sees it. */
export const suite = contextEngineeringSuite;

/** How a run ended: what executeRun and the public resume both report. */
type Ended = Pick<RunResult, 'status'>;

/** A finished (or interrupted) in-process run and what it left. */
export interface CeRun {
  root: string;
  runId: string;
  log: FileEventLog;
  /** How the run (or the resume that finished it) ended. */
  out: Ended;
  events: StoredEvent[];
  outputs: RunOutputs;
  /** The events of one job, in order. */
  job(jobId: string): StoredEvent[];
  cleanup(): Promise<void>;
}

/** Options of `runCe`. */
export interface RunCeOptions {
  cases?: string[];
  /** Edits the default config (e.g. a cell's budget) before the run is planned. */
  edit?: (c: ContextEngineeringConfig) => ContextEngineeringConfig;
  stepMs?: number;
  signal?: AbortSignal;
  /** Told of each event as soon as the log has stored it (before the run's next step). */
  onEvent?: (e: StoredEvent) => void;
  /** Options of the scripted model (faults, missing usage). */
  scripted?: Omit<ScriptedModelOptions, 'players'>;
  /** Calls another model than the run's own scripted one (a server the test counts calls at). */
  caller?: ModelCaller;
}

/** Runs the suite (all cases by default) with concurrency 1. */
export async function runCe(o: RunCeOptions = {}): Promise<CeRun> {
  const tmp = await tempDir('evalog-ce-');
  const base = defaultConfig();
  const config = (o.edit ?? ((c) => c))({
    ...base,
    concurrency: 1,
    cases: o.cases ?? null,
    cells: Object.fromEntries(Object.entries(base.cells).map(([k, c]) => [k, { ...c, concurrency: 1 }])),
  });
  const runId = 'ce';
  const log = await FileEventLog.open({ root: tmp.dir });
  const prepared = await suite.configure(config).prepare();
  const started = planRun(prepared, { scripted: true });
  const out = await executeRun({
    suite: prepared,
    log: o.onEvent ? observed(log, o.onEvent) : log,
    runId,
    started,
    endpoint: { scripted: true },
    // The suite is played by its own player, as a user's suite would be: no registry involved.
    players: [contextEngineeringPlayer],
    clock: steppingClock(Date.UTC(2026, 0, 1), o.stepMs ?? 5),
    sleep: async () => {},
    ...(o.scripted ? { scripted: o.scripted } : {}),
    ...(o.caller ? { caller: o.caller } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return loaded(tmp, log, runId, out);
}

/**
 * The log as the run sees it, telling `seen` of each event once it is stored: synchronously after
 * the append, so a test can stop the run at an exact event (a subscription would see it later).
 */
function observed(log: EventLog, seen: (e: StoredEvent) => void): EventLog {
  return {
    append: async (events) => {
      const results = await log.append(events);
      for (const [i, e] of events.entries()) seen({ ...e, seq: results[i]!.seq });
      return results;
    },
    appendAfter: async (event, fence) => {
      const result = await log.appendAfter(event, fence);
      seen({ ...event, seq: result.seq });
      return result;
    },
    read: (runId, options) => log.read(runId, options),
    subscribe: (runId, options) => log.subscribe(runId, options),
    claimWriter: (runId) => log.claimWriter(runId),
    runs: () => log.runs(),
    blobs: (runId) => log.blobs(runId),
    close: () => log.close(),
  };
}

/** Reads the run back: its events, outputs and per-job view. */
export async function loaded(tmp: { dir: string; cleanup: () => Promise<void> }, log: FileEventLog, runId: string, out: Ended): Promise<CeRun> {
  const events: StoredEvent[] = [];
  for await (const e of log.read(runId)) events.push(e);
  const outputs = await rebuild({ log, runId, suite });
  return {
    root: tmp.dir,
    runId,
    log,
    out,
    events,
    outputs,
    job: (jobId) => events.filter((e) => e.jobId === jobId),
    cleanup: async () => {
      await log.close();
      await tmp.cleanup();
    },
  };
}

/** The `data` of a job's events of one type, in order. */
export function dataOf<T extends EventType>(events: readonly StoredEvent[], type: T): DataOf<T>[] {
  return events.filter((e) => e.type === type).map((e) => e.data as DataOf<T>);
}

// run, resume, replay and rebuild as functions, for programs that drive evalog without its CLI.
// They take the suite itself (a built-in one, or the user's), the log to write to, and optionally
// an endpoint; without one the built-in scripted model plays, with the suite's scripted player.
// A recorded run's suite that a plugin provides has that plugin loaded first (PluginUnavailableError,
// a one-line UserError, when it cannot be).
import type { StoredEvent } from '../events/index.js';
import { followDuring, type EventLog } from '../log/index.js';
import { rebuildOutputs, type RunOutputs } from '../projections/outputs.js';
import { resolveConfig, type ConfigOverrides } from '../harness/orchestration/config.js';
import type { ModelEndpoint } from '../harness/endpoint/endpoint.js';
import { executeRun, planRun } from '../harness/orchestration/launch.js';
import { replayRun, resumeRun, type ReplayReport } from '../harness/orchestration/replay-resume.js';
import { loadRecording } from '../harness/orchestration/recording.js';
import type { DefinedSuite } from '../harness/suite/index.js';
import type { Player } from '../providers/scripted/index.js';
import { ensureSuite, outputHooksOf, playersWith, pluginVersions, startOfRun, suiteNamed } from '../app/index.js';

/** Any suite, whatever its config and case types: what defineSuite returns, already erased. */
export type AnySuite = DefinedSuite;

/** An OpenAI-compatible endpoint; the key stays in memory, run.json records `baseUrlEnv` only. */
export interface EndpointOptions {
  baseURL: string;
  apiKey: string;
  model: string;
  /** What run.json records as where the endpoint came from (default `options.endpoint`). */
  baseUrlEnv?: string;
}

/** What every function here takes besides the run. */
interface Common {
  /** The run's suite: a built-in one is found by name when absent. */
  suite?: AnySuite;
  /** The suite's scripted player, for runs on the built-in scripted model. */
  player?: Player;
  signal?: AbortSignal;
  /**
   * Every event of the run, in log order, from the log's subscription (`replayed` = it was in the
   * log before a resume began); all of them have been seen when the function returns.
   */
  onEvent?: (event: StoredEvent, replayed: boolean) => void;
}

/** Options of `run`. */
export interface RunOptions extends Common {
  suite: AnySuite;
  log: EventLog;
  /** A new run id: letters, digits, `_` and `-`. */
  runId: string;
  /** Overrides of the suite's defaults (merged per top-level key), validated by the suite's schema. */
  config?: Record<string, unknown>;
  /** Absent = the built-in scripted model. */
  endpoint?: EndpointOptions;
}

/** How a run ended; `outputs` (rows, summary, usage, run.json) once it completed. */
export interface RunResult {
  runId: string;
  status: 'completed' | 'interrupted';
  outputs: RunOutputs | null;
}

/** Runs a suite into `log` under a new run id: every job to its end, or to the signal's interrupt. */
export async function run(o: RunOptions): Promise<RunResult> {
  // A plugin's suite in hand needs no registry (it carries its manifests), but its plugin's version
  // is recorded as the CLI records it; one that cannot load records none.
  await ensureSuite(o.suite.name).catch(() => undefined);
  const suite = await resolveConfig(o.suite, undefined, (o.config ?? {}) as ConfigOverrides);
  const endpoint = endpointOf(o.endpoint);
  const started = planRun(suite, endpoint, pluginVersions());
  const execute = () => executeRun({ suite, log: o.log, runId: o.runId, started, endpoint, players: playersWith(o.player ?? null), ...signal(o) });
  const out = await watched(o, 0, execute);
  return finished(o.log, o.runId, out.status, o.suite);
}

/** Options of `resume`. */
export interface ResumeOptions extends Common {
  log: EventLog;
  runId: string;
  /** The endpoint the run started with (absent = the built-in scripted model). */
  endpoint?: EndpointOptions;
}

/** Finishes an interrupted run in its own log without sending any completed model call again. */
export async function resume(o: ResumeOptions): Promise<RunResult> {
  await startOfRun(o.log, o.runId);
  const resumeIt = () =>
    resumeRun(o.log, o.runId, {
      endpoint: endpointOf(o.endpoint),
      players: playersWith(o.player ?? null),
      suiteOf: lookup(o.suite),
      ...signal(o),
    });
  // What the log holds already is `replayed`; a run that is complete already is not run again, so nothing is watched.
  const rec = o.onEvent ? await loadRecording(o.log, o.runId) : null;
  const out = rec && !rec.completed ? await watched(o, rec.lastSeq, resumeIt) : await resumeIt();
  return finished(o.log, o.runId, out.status, o.suite);
}

/** Re-runs the actors against the run's recorded effects and reports the first divergence, if any; writes nothing. */
export async function replay(o: { log: EventLog; runId: string; suite?: AnySuite }): Promise<ReplayReport> {
  await startOfRun(o.log, o.runId);
  return replayRun(o.log, o.runId, lookup(o.suite));
}

/** Derives a run's outputs from its log alone (write them with `writeOutputs`). */
export async function rebuild(o: { log: EventLog; runId: string; suite?: AnySuite }): Promise<RunOutputs> {
  await startOfRun(o.log, o.runId);
  return rebuildOutputs(o.log, o.runId, o.suite ? outputHooksOf(o.suite) : suiteNamed);
}

function lookup(suite: AnySuite | undefined) {
  return (name: string) => (suite && name === suite.name ? suite : suiteNamed(name));
}

function signal(o: Common) {
  return o.signal ? { signal: o.signal } : {};
}

// onEvent is fed by the log's subscription while `body` runs; the writer lock comes first, so the
// embedded log's file exists when the subscription opens it (body takes the lock again, idempotent).
async function watched<T>(o: Common & { log: EventLog; runId: string }, recordedUpTo: number, body: () => Promise<T>): Promise<T> {
  const sink = o.onEvent;
  if (!sink) return body();
  await o.log.claimWriter(o.runId);
  return followDuring(o.log, o.runId, sink, recordedUpTo, body);
}

async function finished(log: EventLog, runId: string, status: 'completed' | 'interrupted', suite: AnySuite | undefined): Promise<RunResult> {
  const outputs = status === 'completed' ? await rebuildOutputs(log, runId, suite ? outputHooksOf(suite) : suiteNamed) : null;
  return { runId, status, outputs };
}

function endpointOf(e: EndpointOptions | undefined): ModelEndpoint {
  if (!e) return { scripted: true };
  return { scripted: false, baseURL: e.baseURL, apiKey: e.apiKey, model: e.model, baseUrlEnv: e.baseUrlEnv ?? 'options.endpoint', apiKeyEnv: null };
}

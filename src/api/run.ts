// run, resume, replay and rebuild as functions, for programs that drive evalog without its CLI.
// They take the suite itself (a built-in one, or the user's), the log to write to, and optionally
// an endpoint; without one the built-in scripted model plays, with the suite's scripted player.
import type { StoredEvent } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { rebuildOutputs, type RunOutputs } from '../projections/outputs.js';
import { resolveConfig, type ConfigOverrides } from '../harness/config.js';
import type { ModelEndpoint } from '../harness/endpoint.js';
import { executeRun, planRun } from '../harness/launch.js';
import { replayRun, resumeRun, type ReplayReport } from '../harness/replay-resume.js';
import type { Suite } from '../harness/suite/index.js';
import type { Player } from '../providers/scripted/index.js';
import { outputHooksOf, playersWith, suiteNamed } from '../app/index.js';

/**
 * Any suite, whatever its config and case types: the functions here run it as the harness does.
 * SEAM(defineSuite): becomes `DefinedSuite` (already erased) when defineSuite lands.
 */
// biome-ignore lint/suspicious/noExplicitAny: a suite's hooks take its own case type; the harness erases it once, here.
export type AnySuite = Suite<any, any>;

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
  /** Every event as it is recorded (`replayed` = served from the log by a resume). */
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
  const config = resolveConfig(o.suite, undefined, (o.config ?? {}) as ConfigOverrides);
  const endpoint = endpointOf(o.endpoint);
  const started = planRun(o.suite, config, endpoint);
  const out = await executeRun({ suite: o.suite, log: o.log, runId: o.runId, started, endpoint, players: playersWith(o.player ?? null), ...events(o) });
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
  const out = await resumeRun(o.log, o.runId, { endpoint: endpointOf(o.endpoint), players: playersWith(o.player ?? null), suiteOf: lookup(o.suite), ...events(o) });
  return finished(o.log, o.runId, out.status, o.suite);
}

/** Re-runs the actors against the run's recorded effects and reports the first divergence, if any; writes nothing. */
export function replay(o: { log: EventLog; runId: string; suite?: AnySuite }): Promise<ReplayReport> {
  return replayRun(o.log, o.runId, lookup(o.suite));
}

/** Derives a run's outputs from its log alone (write them with `writeOutputs`). */
export function rebuild(o: { log: EventLog; runId: string; suite?: AnySuite }): Promise<RunOutputs> {
  return rebuildOutputs(o.log, o.runId, o.suite ? outputHooksOf(o.suite) : suiteNamed);
}

function lookup(suite: AnySuite | undefined) {
  return (name: string) => (suite && name === suite.name ? suite : suiteNamed(name));
}

function events(o: Common) {
  return { ...(o.signal ? { signal: o.signal } : {}), ...(o.onEvent ? { onEvent: o.onEvent } : {}) };
}

async function finished(log: EventLog, runId: string, status: 'completed' | 'interrupted', suite: AnySuite | undefined): Promise<RunResult> {
  const outputs = status === 'completed' ? await rebuildOutputs(log, runId, suite ? outputHooksOf(suite) : suiteNamed) : null;
  return { runId, status, outputs };
}

function endpointOf(e: EndpointOptions | undefined): ModelEndpoint {
  if (!e) return { scripted: true };
  return { scripted: false, baseURL: e.baseURL, apiKey: e.apiKey, model: e.model, baseUrlEnv: e.baseUrlEnv ?? 'options.endpoint', apiKeyEnv: null };
}

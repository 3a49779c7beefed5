// What the tests of memory-eviction's steps as runs share: the files the steps wrote before they
// were runs (computed here as those steps did: runPolicy, gradeQaRows, qaStatsFromRows, and the
// protocol's record and status from the CLI's protocolFields/statusOf),
// a run's events read from a log, and a log cut short as a kill leaves it.
import { mkdir } from 'node:fs/promises';
import type { EvalogEvent, StoredEvent } from '../../src/events/index.js';
import type { EventLog } from '../../src/log/index.js';
import { FileEventLog } from '../../src/log/file/index.js';
import { fold } from '../../src/projections/fold/projection.js';
import { jsonDocument, jsonLines } from '../../src/projections/writer.js';
import { buildCases } from '../../packages/suite-memory-eviction/src/cases.js';
import { loadDataset } from '../../packages/suite-memory-eviction/src/dataset.js';
import { runPolicy } from '../../packages/suite-memory-eviction/src/policy-run.js';
import { loadProtocol, type Protocol } from '../../packages/suite-memory-eviction/src/protocol.js';
import { gradeQaRows } from '../../packages/suite-memory-eviction/src/qa-grade.js';
import { qaAnswerRows } from '../../packages/suite-memory-eviction/src/qa-report.js';
import { qaStatsFromRows } from '../../packages/suite-memory-eviction/src/qa-stats.js';
import type { EvalCase } from '../../packages/suite-memory-eviction/src/types.js';
import { pathToFileURL } from 'node:url';
import { protocolFields, statusOf } from '../../packages/suite-memory-eviction/src/cli/inputs.js';

/** The protocol folder and dataset the steps were given, loaded as the CLI loads them. */
export function loadInputs(protocolDir: string, datasetPath: string): { protocol: Protocol; cases: EvalCase[] } {
  const protocol = loadProtocol(pathToFileURL(`${protocolDir}/`));
  return { protocol, cases: buildCases(protocol, loadDataset(datasetPath, protocol.config.dataset.sha256)) };
}

/** Every event of a run, in log order. */
export async function eventsOf(log: EventLog, runId: string): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of log.read(runId)) out.push(e);
  return out;
}

/** Every event of the run `runId` whose embedded log is under `root`. */
export async function fileEvents(root: string, runId: string): Promise<StoredEvent[]> {
  const log = await FileEventLog.open({ root, readOnly: true });
  try {
    return await eventsOf(log, runId);
  } finally {
    await log.close();
  }
}

/**
 * The three files run-policy wrote before it was a run, for the same inputs: policy.raw.jsonl and
 * summary.json from `runPolicy`, run.json as it assembled it (its time and git state then came from
 * the wall clock and the checkout; here from the run's RunStarted, which recorded both).
 */
export function policyFilesBefore(protocol: Protocol, cases: readonly EvalCase[], started: StoredEvent): Record<string, string> {
  if (started.type !== 'RunStarted') throw new TypeError('the first event of a run is its RunStarted');
  const { rows, summary } = runPolicy(cases, protocol.config);
  const run = {
    schema_version: 1,
    protocol_id: protocol.config.protocol_id,
    created_at: started.at,
    git: started.data.provenance.git,
    dataset: protocol.config.dataset,
    artifacts: protocol.artifacts,
    evaluation_time: protocol.evaluationTime.toISOString(),
    policies: ['confidence', 'hybrid-v1'],
    capacities: protocol.config.pool.capacities,
    ...protocolFields(protocol),
  };
  return {
    'policy.raw.jsonl': jsonLines(rows),
    'summary.json': jsonDocument({ ...summary, protocol_status: statusOf(protocol) }),
    'run.json': jsonDocument(run),
  };
}

/** The three files grade-qa wrote before it was a run, from the answers in the run-qa run's log. */
export async function gradeFilesBefore(protocol: Protocol, cases: readonly EvalCase[], qaLog: EventLog, qaRunId: string): Promise<Record<string, string>> {
  const events = await eventsOf(qaLog, qaRunId);
  const started = events[0]!;
  if (started.type !== 'RunStarted') throw new TypeError('the first event of a run is its RunStarted');
  const graded = gradeQaRows(protocol, cases, await fold(qaAnswerRows, events));
  const cfg = protocol.config;
  const { summary, stats } = qaStatsFromRows(graded, {
    protocolId: cfg.protocol_id,
    graderVersion: cfg.qa.grader_version,
    qaCapacity: cfg.pool.qa_capacity,
    bootstrap: { seed: cfg.statistics.bootstrap_seed, iterations: cfg.statistics.bootstrap_iterations, alpha: cfg.statistics.alpha },
  });
  const scripted = started.data.model.scripted;
  const protocol_status = statusOf(protocol);
  return {
    'qa.rows.jsonl': jsonLines(graded),
    'qa.summary.json': jsonDocument({ ...summary, scripted, protocol_status }),
    'qa.stats.json': jsonDocument({ ...stats, scripted, protocol_status }),
  };
}

/** The prefix of a run's events up to the `jobs`-th job end, plus the next job's start (a job in flight at the kill). */
export function cutAfterJobs(events: readonly StoredEvent[], jobs: number): StoredEvent[] {
  let ended = 0;
  let at = -1;
  for (const [i, e] of events.entries()) {
    if (e.type === 'JobSucceeded' || e.type === 'JobFailed') ended += 1;
    if (ended === jobs) {
      at = i;
      break;
    }
  }
  if (at < 0) throw new RangeError(`the run has fewer than ${jobs} ended jobs`);
  const done = new Set(events.slice(0, at + 1).flatMap((e) => (e.type === 'JobSucceeded' ? [e.jobId!] : [])));
  const inFlight = events.slice(at + 1).find((e) => e.type === 'JobStarted' && !done.has(e.jobId!));
  return inFlight ? [...events.slice(0, at + 1), inFlight] : events.slice(0, at + 1);
}

/** Writes `events` as the whole log of their run under `root` (what a kill after the last of them leaves). */
export async function writeLog(root: string, events: readonly StoredEvent[]): Promise<void> {
  await mkdir(root, { recursive: true });
  const log = await FileEventLog.open({ root });
  try {
    await log.append(events.map(({ seq: _s, ...e }) => e as EvalogEvent));
  } finally {
    await log.close();
  }
}

/** How many events of each type a job has in `events`, by job id. */
export function perJob(events: readonly StoredEvent[], type: StoredEvent['type']): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of events) if (e.type === type && e.jobId !== undefined) out.set(e.jobId, (out.get(e.jobId) ?? 0) + 1);
  return out;
}

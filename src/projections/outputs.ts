import { join } from 'node:path';
import type { StoredEvent } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { provenanceProjection, type RunFile } from './provenance.js';
import { rowsProjection, type Row } from './rows.js';
import { summarize, type Summary } from './summary.js';
import { usageProjection, type UsageFile } from './usage/index.js';
import { jsonDocument, jsonLines, writeAtomic } from './writer.js';

/** Everything a run folder publishes, derived from the log alone. */
export interface RunOutputs {
  rows: Row[];
  summary: Summary;
  usage: UsageFile;
  run: RunFile;
}

/** The run has no `RunStarted`: nothing can be derived. */
export class RunNotFoundError extends Error {
  override name = 'RunNotFoundError';
  constructor(readonly runId: string) {
    super(`run ${runId} has no RunStarted event in the log`);
  }
}

/** Folds a run's events through every projection in one pass. */
export async function deriveOutputs(runId: string, events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>): Promise<RunOutputs> {
  const projections = [rowsProjection, usageProjection, provenanceProjection] as const;
  const states = projections.map((p) => p.initialState()) as unknown[];
  for await (const e of events) {
    projections.forEach((p, i) => {
      if (p.canHandle(e)) states[i] = (p.evolve as (s: unknown, e: StoredEvent) => unknown)(states[i], e);
    });
  }
  const rows = rowsProjection.result(states[0] as never);
  const usage = usageProjection.result(states[1] as never);
  const run = provenanceProjection.result(states[2] as never);
  if (!run) throw new RunNotFoundError(runId);
  const summary = summarize(rows, { runId, suite: run.suite, model: run.model.name, scripted: run.model.scripted });
  return { rows, summary, usage, run };
}

/** Reads a run from the log and derives its outputs. */
export function rebuildOutputs(log: EventLog, runId: string): Promise<RunOutputs> {
  return deriveOutputs(runId, log.read(runId));
}

/** Names of the published files. */
export const OUTPUT_FILES = ['rows.jsonl', 'summary.json', 'usage.json', 'run.json'] as const;

/** Writes the four files canonically and atomically; the byte content depends on the events only. */
export async function writeOutputs(dir: string, o: RunOutputs): Promise<void> {
  await writeAtomic(join(dir, 'rows.jsonl'), jsonLines(o.rows));
  await writeAtomic(join(dir, 'summary.json'), jsonDocument(o.summary));
  await writeAtomic(join(dir, 'usage.json'), jsonDocument(o.usage));
  await writeAtomic(join(dir, 'run.json'), jsonDocument(o.run));
}

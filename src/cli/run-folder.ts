import { basename, dirname, join, resolve } from 'node:path';
import { RunId } from '../events/index.js';
import { recordedRunId } from '../log/index.js';
import { exists } from '../projections/writer.js';
import type { RunFolder } from '../harness/suite/index.js';
import { InputError } from './io.js';

/** A run folder: the embedded log's root is its parent, the run id its name (the suite contract's type). */
export type { RunFolder } from '../harness/suite/index.js';

/** Resolves a run folder path and checks that its name is a valid run id. */
export function runFolder(command: string, path: string, cwd: string): RunFolder {
  const dir = resolve(cwd, path);
  const runId = basename(dir);
  const ok = RunId.safeParse(runId);
  if (!ok.success)
    throw new InputError(`evalog ${command}: the run folder name ${JSON.stringify(runId)} is not a valid run id (${ok.error.issues[0]!.message})`);
  return { dir, root: dirname(dir), runId };
}

/**
 * An existing run folder, under the run id its log recorded (a renamed or copied folder keeps
 * it). A folder with no log yet (`requireLog` false: watch waits for the run) goes by its name.
 */
export async function recordedFolder(command: string, path: string, cwd: string, requireLog: boolean): Promise<RunFolder> {
  const dir = resolve(cwd, path);
  const hasLog = await exists(join(dir, 'log', 'events.evlog'));
  if (!hasLog) {
    if (requireLog) throw new InputError(`evalog ${command}: ${dir} has no event log (log/events.evlog)`);
    return runFolder(command, path, cwd);
  }
  const runId = await recordedRunId(dir);
  if (runId === null) throw new InputError(`evalog ${command}: ${dir}: its event log holds no run (log/events.evlog has no event)`);
  return { dir, root: dirname(dir), runId };
}

/** Default folder of a new run: `runs/<suite>-<UTC timestamp>`. */
export function defaultRunPath(suite: string, nowMs: number): string {
  const stamp = new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `runs/${suite}-${stamp}`;
}

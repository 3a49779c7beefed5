import { join } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import type { EventLog } from '../log/index.js';
import { exists } from '../projections/writer.js';
import { InputError, type CliIO } from './io.js';
import { runFolder, type RunFolder } from './run-folder.js';

/** An existing run's folder and its opened log. */
export interface OpenedRun {
  folder: RunFolder;
  log: EventLog;
}

/** Opens the log of an existing run folder, or explains why there is none. */
export async function openRun(command: string, path: string, io: CliIO): Promise<OpenedRun> {
  const folder = runFolder(command, path, io.cwd);
  if (!(await exists(join(folder.dir, 'log', 'events.evlog')))) throw new InputError(`evalog ${command}: ${folder.dir} has no event log (log/events.evlog)`);
  const log = await FileEventLog.open({ root: folder.root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
  return { folder, log };
}

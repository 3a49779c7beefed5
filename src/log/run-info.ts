import type { StoredEvent } from '../events/index.js';
import type { RunInfo } from './types.js';

/** Folds a run's events into its `RunInfo`; shared by every log so statuses agree. */
export function runInfoOf(runId: string, events: Iterable<StoredEvent>): RunInfo {
  const info: RunInfo = { runId, status: 'empty', suite: null, startedAt: null, events: 0 };
  for (const e of events) foldRunInfo(info, e);
  return info;
}

/** One step of the `RunInfo` fold. */
export function foldRunInfo(info: RunInfo, e: StoredEvent): RunInfo {
  info.events += 1;
  if (e.type === 'RunStarted') {
    info.status = 'running';
    info.suite = e.data.suite;
    info.startedAt = e.at;
  } else if (e.type === 'RunCompleted') {
    info.status = e.data.status;
  } else if (e.type === 'RunReopened') {
    info.status = 'running'; // a retry runs jobs again until its own RunCompleted
  }
  return info;
}

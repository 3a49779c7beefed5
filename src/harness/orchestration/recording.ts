import type { DataOf, StoredEvent } from '../../events/index.js';
import type { EventLog } from '../../log/index.js';
import { UserError } from '../../core/errors.js';

/** A run's log, grouped for replay: the plan, and each scope's events in order. */
export interface Recording {
  started: DataOf<'RunStarted'>;
  /** Events per scope: '' for the run itself, else the job id. */
  byScope: Map<string, StoredEvent[]>;
  completed: boolean;
  events: number;
  /** Seq of the run's last stored event (0 for none): what is past it was appended later. */
  lastSeq: number;
}

/** The log holds no run with this id (or no `RunStarted`). */
export class NoRecordingError extends UserError {
  override name = 'NoRecordingError';
  constructor(readonly runId: string) {
    super(`no run ${runId} in the log (no RunStarted event)`);
  }
}

/** Reads a run's log into a recording. */
export async function loadRecording(log: EventLog, runId: string): Promise<Recording> {
  const byScope = new Map<string, StoredEvent[]>();
  let started: DataOf<'RunStarted'> | null = null;
  let completed = false;
  let events = 0;
  let lastSeq = 0;
  for await (const e of log.read(runId)) {
    events += 1;
    lastSeq = e.seq;
    const key = e.jobId ?? '';
    const list = byScope.get(key);
    if (list) list.push(e);
    else byScope.set(key, [e]);
    if (e.type === 'RunStarted') started = e.data;
    if (e.type === 'RunCompleted') completed = true;
    // A retry reopens a completed run; it is complete again only at its own RunCompleted.
    if (e.type === 'RunReopened') completed = false;
  }
  if (!started) throw new NoRecordingError(runId);
  return { started, byScope, completed, events, lastSeq };
}

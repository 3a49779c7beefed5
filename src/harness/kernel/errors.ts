import type { EvalogEvent, StoredEvent } from '../../events/index.js';

/** Re-running the actors emitted an event that differs from the logged one at the same position. */
export class DeterminismViolation extends Error {
  override name = 'DeterminismViolation';
  constructor(
    readonly logged: StoredEvent,
    readonly emitted: EvalogEvent,
    readonly fields: readonly string[],
  ) {
    super(`event ${logged.id} (seq ${logged.seq}, ${logged.type}) differs when re-emitted as ${emitted.type}: ${fields.join(', ')}`);
  }
}

/** Replay reached the end of a scope's record: the job would go on live, which replay never does. */
export class EndOfRecording extends Error {
  override name = 'EndOfRecording';
  constructor(
    readonly jobId: string | undefined,
    readonly n: number,
  ) {
    super(`the log of ${jobId ?? 'the run'} ends before event ${n}`);
  }
}

/** A run was stopped by a signal; it can be resumed from its log. */
export class RunInterrupted extends Error {
  override name = 'RunInterrupted';
  constructor() {
    super('run interrupted');
  }
}

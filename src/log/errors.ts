import { UserError } from '../core/errors.js';

/** The log's bytes are damaged somewhere other than a torn tail. */
export class LogCorruptedError extends UserError {
  override name = 'LogCorruptedError';
  constructor(
    message: string,
    readonly file: string,
    readonly offset: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A blob referenced by an event is not in the store. */
export class BlobNotFoundError extends Error {
  override name = 'BlobNotFoundError';
  constructor(readonly hash: string) {
    super(`blob ${hash} not found`);
  }
}

/** The log was used after `close()`. */
export class LogClosedError extends Error {
  override name = 'LogClosedError';
  constructor() {
    super('event log is closed');
  }
}

/** Another process holds the run's writer lock. */
export class LogLockedError extends UserError {
  override name = 'LogLockedError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
  }
}

/** The run's log (or a folder it writes into) cannot be written: read-only, immutable or not ours. */
export class LogNotWritableError extends UserError {
  override name = 'LogNotWritableError';
  constructor(
    readonly file: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`${file}: the log is not writable (${code}); a command that continues the run must append to it`, options);
  }
}

/**
 * A fenced append was refused: the job's stream moved past the position the writer knew, so
 * another worker has claimed the job since. The writer must stop writing for it.
 */
export class FencedOffError extends Error {
  override name = 'FencedOffError';
  constructor(
    readonly eventId: string,
    readonly expectedSeq: number,
    options?: { cause?: unknown },
  ) {
    super(`event ${eventId} refused: the job's stream is no longer at seq ${expectedSeq} (another worker claimed the job)`, options);
  }
}

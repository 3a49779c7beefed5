/** The log's bytes are damaged somewhere other than a torn tail. */
export class LogCorruptedError extends Error {
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
export class LogLockedError extends Error {
  override name = 'LogLockedError';
  constructor(readonly file: string, message: string) {
    super(message);
  }
}

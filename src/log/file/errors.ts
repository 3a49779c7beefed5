// Errors specific to the embedded file log (the shared ones live in ../errors.ts).

/** A run id that cannot name a run folder (it would escape the root or break subjects). */
export class InvalidRunIdError extends Error {
  override name = 'InvalidRunIdError';
  constructor(
    readonly runId: unknown,
    where: string,
  ) {
    super(`${where}: run id ${JSON.stringify(runId)} is not valid (letters, digits, "_" and "-", at most 128, starting with a letter or digit)`);
  }
}

/** An encoded event larger than a frame may be; large payloads belong in blobs. */
export class EventTooLargeError extends Error {
  override name = 'EventTooLargeError';
  constructor(
    readonly eventId: string,
    readonly bytes: number,
    limit: number,
  ) {
    super(`event ${eventId} encodes to ${bytes} bytes, more than the ${limit} a frame may hold; store large payloads as blobs`);
  }
}

/** Writing or syncing a run's log failed; the run refuses further appends in this process. */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
  constructor(
    readonly file: string,
    options: { cause: unknown },
  ) {
    super(
      `${file}: write or fsync failed, so this run takes no more appends until reopened: ${String((options.cause as Error)?.message ?? options.cause)}`,
      options,
    );
  }
}

/** A log opened for reading only (replay) was asked to write. */
export class ReadOnlyLogError extends Error {
  override name = 'ReadOnlyLogError';
  constructor(
    readonly path: string,
    readonly operation: 'append' | 'blob write',
  ) {
    super(`${path}: the log is open for reading only, so this ${operation} is refused`);
  }
}

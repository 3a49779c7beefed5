// Errors specific to the JetStream log (the shared ones live in ../errors.ts).

/** A run id, job id or subject prefix that cannot be one NATS subject token. */
export class InvalidSubjectTokenError extends Error {
  override name = 'InvalidSubjectTokenError';
  constructor(
    readonly field: 'runId' | 'jobId' | 'subjectPrefix',
    readonly value: unknown,
  ) {
    super(`${field} ${JSON.stringify(value)} cannot be used in a NATS subject (letters, digits, "_", "-"${field === 'jobId' ? ', ":"' : ''} only)`);
  }
}

/** Publishing gave up (non-retryable server answer, or the retry deadline passed). */
export class AppendFailedError extends Error {
  override name = 'AppendFailedError';
  constructor(
    message: string,
    readonly acknowledged: number,
    options: { cause?: unknown },
  ) {
    super(`${message} (${acknowledged} events of the batch were acknowledged; appending the batch again is safe)`, options);
  }
}

/** The stream stored a batch in another order than given; seen only if a reconnect reordered it. */
export class AppendOrderError extends Error {
  override name = 'AppendOrderError';
  constructor(
    readonly eventId: string,
    readonly seq: number,
    readonly previousSeq: number,
  ) {
    super(`event ${eventId} was stored at seq ${seq}, before the event given ahead of it (seq ${previousSeq})`);
  }
}

/** The stream exists but does not capture this log's subjects or is not file-backed. */
export class StreamConfigError extends Error {
  override name = 'StreamConfigError';
  constructor(
    readonly stream: string,
    message: string,
  ) {
    super(`stream ${stream}: ${message}`);
  }
}

/** A JetStream request made for a caller failed for good, or still failed when its retries ran out. */
export class JetStreamRequestError extends Error {
  override name = 'JetStreamRequestError';
  /** `retriedMs` is the retry deadline that passed, or null for a failure that was not retried. */
  constructor(
    readonly operation: string,
    readonly retriedMs: number | null,
    options: { cause: unknown },
  ) {
    const why = (options.cause as Error | undefined)?.message ?? String(options.cause);
    super(retriedMs === null ? `${operation} failed: ${why}` : `${operation} still failed after ${retriedMs} ms of retries: ${why}`, options);
  }
}

// Public exports of the JetStream event log.
export { JetStreamEventLog } from './log.js';
export { CONNECTION_DEFAULTS, type JetStreamLogOptions, type ResolvedOptions } from './options.js';
export { AppendFailedError, AppendOrderError, InvalidSubjectTokenError, JetStreamRequestError, StreamConfigError } from './errors.js';
// Causes an AppendFailedError may carry.
export { PublishRejectedError, PublishTimeoutError } from './acks.js';
export { ConnectionLostError } from './connection.js';

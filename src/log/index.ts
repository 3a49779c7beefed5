// Public exports of the event logs.
export type { AppendResult, BlobStore, EventLog, ReadOptions, RunInfo, SubscribeOptions } from './types.js';
export { BlobNotFoundError, LogClosedError, LogCorruptedError, LogLockedError } from './errors.js';
export { foldRunInfo, runInfoOf } from './run-info.js';
export { FileBlobStore, FileEventLog, runLogPaths, type CommitInfo, type FileEventLogOptions } from './file/index.js';

// Public exports of the event logs.
export type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from './types.js';
export { BlobNotFoundError, FencedOffError, LogClosedError, LogCorruptedError, LogLockedError, LogNotWritableError } from './errors.js';
export { foldRunInfo, runInfoOf } from './run-info.js';
export { BlobChecker, BlobDamagedError, blobRefsOf, readCheckedBlob } from './blob-check.js';
export { FileBlobStore, FileEventLog, recordedRunId, runLogPaths, type CommitInfo, type FileEventLogOptions } from './file/index.js';
export { followDuring, RunFollower, type EventSink } from './follow.js';

// Public exports of the embedded file event log.
export { FileEventLog, runLogPaths, type FileEventLogOptions } from './file-log.js';
export { FileBlobStore } from './blobs.js';
export { recordedRunId } from './recorded-run.js';
export { EventTooLargeError, InvalidRunIdError, LogWriteError, ReadOnlyLogError } from './errors.js';
export type { CommitInfo } from './writer.js';
export { FORMAT_VERSION, MAGIC } from './format.js';

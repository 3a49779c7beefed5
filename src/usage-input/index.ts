// Offline usage inputs: evalog exports and DeepSeek Harness session logs, read into call records.
export { UsageInputError } from './errors.js';
export { decompressFrames, compressFrame, ZstdInputError } from './zstd.js';
export {
  SESSION_FORMAT_VERSION,
  SessionEventError,
  expandAssistantStream,
  finishOutcome,
  inheritedCut,
  parseSessionEvent,
  parseSessionHeader,
  recordsFromSessionEvents,
} from './dsh.js';
export type { SessionEvent, SessionHeader, TimedChunk } from './dsh.js';
export { parseExportedEvent, recordsFromEvalogEvents } from './evalog.js';
export { INPUT_SUFFIXES, readUsageInput, readUsageInputs } from './read.js';
export type { UsageInput, UsageInputFormat } from './read.js';

// The run folder's files streamed from the log: rows and calls spilled to sorted runs, merged back in order.
export { STREAM_LIMITS, streamOutputs, type PublishedOutputs, type StreamLimits, type WrittenOutputs } from './outputs.js';
export { SortedSpill, type SpillSpec } from './spill.js';

// Public exports of the in-memory event log (tests, and evalog/testing for users' suites).
export { MemoryEventLog, MemoryStore } from './memory-log.js';

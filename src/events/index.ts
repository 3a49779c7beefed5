// Public exports of the event model: envelope, families, root union, codec.
export * from './envelope.js';
export * from './common.js';
export * from './run.js';
export * from './attempts.js';
export * from './job.js';
export * from './provider.js';
export * from './tool.js';
export * from './artifact.js';
export * from './grade.js';
export * from './injection.js';
export * from './agent.js';
export * from './workspace.js';
export * from './schema.js';
export { buildEvent, type EventParts } from './build.js';
export * from './errors.js';
export { upcast } from './upcast.js';
export { encodeEvent, decodeEvent, withSeq } from './codec.js';

// Regrade: a new run whose model answers come from a source run's log (no model call).
export { logHash } from './log-hash.js';
export { REGRADE_KEY, RegradeRefusedError, regradePlan } from './plan.js';
export { sourceCaller, SourceMismatchError } from './source-caller.js';

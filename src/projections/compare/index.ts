// Public surface of the run comparison (`evalog compare`): sides, pairing, statistics, protocol checks.
export { CompareInputError, ProtocolMismatchError } from './errors.js';
export { checkProtocols, protocolDifference, protocolOf, type ProtocolRun } from './protocol.js';
export { armJobOf, sidesOf, type ArmJob, type RunRows, type Side, type SideJob } from './sides.js';
export { ALL_PAIRS_MAX_ARMS, compareSides, sidePairs, type Delta, type Flip, type SideComparison } from './pair.js';
export { compareRuns, type CompareRun, type Comparison, type CompareOptions } from './compare.js';
export { compareArms, SUMMARY_BOOTSTRAP } from './arms.js';

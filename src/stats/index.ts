// Public surface of src/stats: CPython-compatible RNG and the paired statistics of A8.
export { StatsError, InvalidArgumentError, EmptyRangeError, EmptySequenceError, EmptyPairsError, PairingError } from './errors.js';
export { bitLength, bitLengthBig, seedKey } from './ints.js';
export { CPythonRandom } from './mt19937.js';
export { compareCodePoints, countCorrect, pairOutcomes, pairedDifference } from './pairs.js';
export type { ArmOutcome, Pair, PairedCases } from './pairs.js';
export { exactMcNemar, mcnemarExactP } from './mcnemar.js';
export type { McNemarResult } from './mcnemar.js';
export { PUBLISHED_BOOTSTRAP, bootstrapDifferences, pairedBootstrap, percentileIndices } from './bootstrap.js';
export type { BootstrapOptions, BootstrapResult } from './bootstrap.js';
export { pairedSuiteStats } from './suite.js';
export type { SuiteStats } from './suite.js';

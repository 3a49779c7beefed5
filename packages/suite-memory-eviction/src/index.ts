// The memory-eviction study: its plugin (the default export) and the parts its tests and evalog's own use.

export { memoryEvictionSuiteCli } from './cli/index.js';
export { GRADE_SUITE, memoryEvictionGradeSuite } from './grade-suite.js';
export { memoryEvictionPlayer } from './player.js';
export { default } from './plugin.js';
export { memoryEvictionPolicySuite, POLICY_SUITE } from './policy-suite.js';
export { memoryEvictionQaSuite } from './qa-suite.js';

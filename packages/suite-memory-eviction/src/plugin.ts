// The plugin evalog's registry loads: the memory-eviction study's three step suites (run-qa's
// answerer, run-policy, grade-qa), their CLI part and the scripted player.
import { definePlugin } from 'evalog';
import { memoryEvictionSuiteCli } from './cli/index.js';
import { GRADE_SUITE, memoryEvictionGradeSuite } from './grade-suite.js';
import { memoryEvictionPlayer } from './player.js';
import { memoryEvictionPolicySuite, POLICY_SUITE } from './policy-suite.js';
import { memoryEvictionQaSuite } from './qa-suite.js';

export default definePlugin({
  name: '@evalog/suite-memory-eviction',
  version: '0.1.0',
  // Unbound: their reports read any log of the study; running one needs the dataset (its command binds it).
  suites: [memoryEvictionQaSuite(null), memoryEvictionPolicySuite(null), memoryEvictionGradeSuite(null)],
  // Its binding also binds the run-policy and grade-qa steps' runs.
  cli: { 'memory-eviction': memoryEvictionSuiteCli, [POLICY_SUITE]: {}, [GRADE_SUITE]: {} },
  players: [memoryEvictionPlayer],
});

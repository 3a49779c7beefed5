// The smoke suite: a small end-to-end exercise of every actor.
export { smokeDefinition, smokeSuite, type SmokeConfig } from './suite.js';
export { smokePlayer } from './player.js';
export { loadSmokeCases, expectedTotal, SMOKE_MANIFEST, type SmokeCase } from './cases.js';

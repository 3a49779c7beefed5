// The command-line part of the memory-eviction study: the answerer's endpoint variables (from its
// suite), how resume, retry, replay and worker bind a recorded step run to its protocol and
// dataset again, and its own command, `evalog memory-eviction <step>` (loaded only when it runs).
import type { SuiteCli } from 'evalog';
import { memoryEvictionCli as answererCli } from '../qa-suite.js';
import { memoryEvictionBinding } from './inputs.js';

/** Everything the CLI knows of the memory-eviction steps. */
export const memoryEvictionSuiteCli: SuiteCli = {
  ...answererCli,
  binding: memoryEvictionBinding,
  commands: [
    {
      name: 'memory-eviction',
      summary: 'the memory-eviction evaluation: validate, run-policy, run-qa, grade-qa, stats',
      load: async (kit) => (await import('./command.js')).memoryEvictionCommand(kit),
    },
  ],
};
// The command's modules (command.ts, run-qa.ts, run-policy.ts, grade-qa.ts, stats.ts) are imported
// only by that load, so a generic command that reads this adjunct does not load them.
export { memoryEvictionBinding, protocolFields, statusOf } from './inputs.js';

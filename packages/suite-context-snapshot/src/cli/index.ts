// The command-line part of the context-snapshot suite: its run flags and endpoint variables (from
// its suite) and its own commands, `evalog summarize` and `evalog context-snapshot grade`, each
// loaded only when it runs. Its recorded runs need no binding.
import type { SuiteCli } from 'evalog';
import { contextSnapshotCli as runCli } from '../suite.js';

/** Everything the CLI knows of the context-snapshot suite. */
export const contextSnapshotSuiteCli: SuiteCli = {
  ...runCli,
  commands: [
    {
      name: 'summarize',
      summary: 'recompute a context-snapshot summary from rows.jsonl',
      load: async () => (await import('./summarize.js')).summarizeCommand,
    },
    {
      name: 'context-snapshot',
      summary: 'offline tools of the context-snapshot suite: grade one artifact file',
      load: async () => (await import('./grade.js')).contextSnapshotCommand,
    },
  ],
};

// tsx lets mocha load the TypeScript tests directly; the reporter ends with the plain
// "N passed, N failed" line that CI reads.
// Files run in parallel worker processes: most of a test's time is spent waiting on the child
// processes, servers and leases it drives, so one more file than cores keeps the CPU busy
// (2 cores here: 3 files at a time, the whole suite in about 7 minutes instead of 21).
const { availableParallelism } = require('node:os');

module.exports = {
  'node-option': ['import=tsx'],
  reporter: './test/support/reporter.cjs',
  // Each file's CPU time, for the reporter's table.
  require: ['./test/support/cpu-hooks.cjs'],
  timeout: 20000,
  parallel: true,
  jobs: Math.max(3, availableParallelism() + 1),
  // The studies' packages' own tests too (each also runs alone from its folder, by its own .mocharc.cjs).
  spec: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
};

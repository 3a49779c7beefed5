// tsx lets mocha load the TypeScript tests directly; the reporter ends with the plain
// "N passed, N failed" line that CI reads.
module.exports = {
  'node-option': ['import=tsx'],
  reporter: './test/support/reporter.cjs',
  timeout: 20000,
  spec: ['test/**/*.test.ts'],
};

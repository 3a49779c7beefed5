// The package's own tests, run from its folder (`npm test` here); the repository's `npm test` runs them too.
module.exports = {
  'node-option': ['import=tsx'],
  reporter: '../../test/support/reporter.cjs',
  timeout: 20000,
  spec: ['test/**/*.test.ts'],
};

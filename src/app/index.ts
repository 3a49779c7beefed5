// The composition root: the registry of built-in suites, their CLI adjuncts and scripted players,
// the seam that resolves a suite by name or file, and the suite API's types for the commands above it.
export { RUN_BINDING, SCRIPTED_PLAYERS, SUITE_CLI, SUITE_COMMANDS, SUITES, suiteCli, suiteNamed } from './registry.js';
export * from '../harness/suite/index.js';
export {
  isSuiteFilePath,
  loadSuiteFile,
  recordedPath,
  SUITE_FILE_EXTENSIONS,
  suiteFileHash,
  SuiteFileError,
  type LoadedSuiteFile,
  type SuiteFileRecord,
} from './suite-file.js';
export {
  builtInNames,
  outputHooksOf,
  outputHooksOfRun,
  playersWith,
  recordedSuiteFile,
  resolveSuite,
  SUITE_FILE_KEY,
  startOfRun,
  SuiteFileChangedError,
  suiteOfRun,
  UnknownSuiteNameError,
  withSuiteFile,
  type ResolvedSuite,
} from './suite-source.js';

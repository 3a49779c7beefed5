// The composition root: the registry of suites (evalog's own, and the installed plugins', each
// loaded when a command needs it), their CLI adjuncts and scripted players, the seam that resolves
// a suite by name or file, and the suite API's types for the commands above it.
export {
  allSuiteNames,
  ensureSuite,
  loadAllPlugins,
  pluginVersions,
  pluginOfSuite,
  PluginUnavailableError,
  runBinding,
  scriptedPlayers,
  suiteCli,
  suiteClis,
  suiteCommands,
  suiteNamed,
} from './registry.js';
export { INSTALLED_PLUGINS, type InstalledPlugin } from './plugins.js';
export * from '../harness/suite/index.js';
export {
  forgetLoadedSuiteFiles,
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

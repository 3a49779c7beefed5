// The composition root: the registry of built-in suites and scripted players, and the suite API's
// types for the commands above it.
export { SCRIPTED_PLAYERS, SUITES, suiteNamed } from './registry.js';
export type {
  AgentHooks, AgentSuite, CaseSpec, CheckResult, Delegation, GradeInput, GradeOutput, Injection, InjectionPoint, ReportHeader, RunFlagOption, RunFlags, SessionSettings, SessionSpec,
  SessionToolOutcome, SideEffect, Suite, SuiteConfigBase, SuiteLookup, SuiteReport, ToolContext, ToolOutcome, WorkerLimits,
} from '../harness/suite/types.js';
export { baseConfigShape } from '../harness/suite/base-config.js';
export { agentHooks, SuiteShapeError } from '../harness/suite/types.js';
export { isSuiteFilePath, loadSuiteFile, recordedPath, SUITE_FILE_EXTENSIONS, suiteFileHash, SuiteFileError, type LoadedSuiteFile, type SuiteFileRecord } from './suite-file.js';
export {
  builtInNames, outputHooksOf, outputHooksOfRun, playersWith, recordedSuiteFile, resolveSuite, SUITE_FILE_KEY, startOfRun, SuiteFileChangedError, suiteOfRun, UnknownSuiteNameError, withSuiteFile,
  type ResolvedSuite,
} from './suite-source.js';

// The suite API: what a suite is made of (defineSuite and its types), as the harness runs it.
export { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from './base-config.js';
export type { EndpointEnv, RunFlagOption, RunFlags, SuiteCli } from './cli.js';
export {
  ConfigSchemaError, defineSuite, UnknownCaseError,
  type AgentHooks, type AgentSpec, type ConfiguredSuite, type DefinedSuite, type GradeFn, type GradeHook, type JobHooks, type ModelRequest, type PreparedSuite,
  type SessionHooks, type Shape, type SingleCallHooks, type SingleCallSpec, type SuiteBase, type SuiteDefinition, type SuiteLookup,
} from './define.js';
export type {
  CaseSpec, CheckResult, Delegation, GradeInput, GradeOutput, Injection, InjectionPoint, ReportHeader, SessionSettings, SessionSpec, SessionToolOutcome, SideEffect,
  SuiteConfigBase, SuiteReport, ToolContext, ToolOutcome, WorkerLimits,
} from './types.js';

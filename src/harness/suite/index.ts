// The suite API: what a suite is made of, as the harness runs it.
export { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from './base-config.js';
export {
  agentHooks, SuiteShapeError,
  type AgentHooks, type AgentSuite, type CaseSpec, type CheckResult, type Delegation, type GradeInput, type GradeOutput, type Injection, type InjectionPoint,
  type ReportHeader, type RunFlagOption, type RunFlags, type SessionSettings, type SessionSpec, type SessionToolOutcome, type SideEffect, type Suite,
  type SuiteConfigBase, type SuiteLookup, type SuiteReport, type ToolContext, type ToolOutcome, type WorkerLimits,
} from './types.js';

// The suite API: what a suite is made of (defineSuite and its types), as the harness runs it.
export { baseConfigShape, DEFAULT_MAX_RETRY_AFTER_MS } from './base-config.js';
export { checkedStopRule, StopRuleError, type WorkerProgress, type WorkerStopRule } from './stop-rule.js';
export type { AppliedRunFlags, EndpointEnv, RunBinding, RunFlagOption, RunFlags, SuiteCli, SuiteCommand } from './cli.js';
export type {
  CliKit,
  EndpointOptions,
  OutputMode,
  RunFolder,
  RunTarget,
  StepLog,
  StepRunOptions,
  StepRunSettings,
  WorkersMode,
} from './cli-kit.js';
export { EXIT, InputError, type CliIO, type Command } from './command.js';
export { intFlag, parseCommandArgs } from './args.js';
export { runSteps, type Steps } from './steps.js';
export { combinedBinding } from './bindings.js';
export {
  ConfigSchemaError,
  defineSuite,
  UnknownCaseError,
  type AgentHooks,
  type AgentSpec,
  type ComputeHooks,
  type ComputeSpec,
  type ConfiguredSuite,
  type DefinedSuite,
  type GradeFn,
  type GradeHook,
  type JobHooks,
  type JobWorkspace,
  type ModelRequest,
  type PreparedSuite,
  type SessionHooks,
  type Shape,
  type SingleCallHooks,
  type SingleCallRequest,
  type SingleCallSpec,
  type SuiteBase,
  type SuiteDefinition,
  type SuiteLookup,
  type SuiteManifests,
  type WorkspaceSpec,
} from './define.js';
export type {
  CaseSpec,
  CheckResult,
  Delegation,
  GradeInput,
  GradeOutput,
  GradedWorkspace,
  Injection,
  InjectionPoint,
  ReportHeader,
  SessionSettings,
  SessionSpec,
  SessionToolOutcome,
  SideEffect,
  SuiteConfigBase,
  SuiteReport,
  ToolContext,
  ToolOutcome,
  WorkerLimits,
  WorkspaceChanges,
} from './types.js';
export * from './row-core.js';
export { definePlugin, type SuitePlugin } from './plugin.js';

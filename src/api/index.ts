// The public API, `import … from 'evalog'`: write a suite (its types, graders, tool helpers), run it
// (run, resume, replay, rebuild), and choose where its events go (the file log or JetStream).
export {
  baseConfigShape,
  defineSuite,
  type AgentSpec,
  type CaseSpec,
  type CheckResult,
  type DefinedSuite,
  type Delegation,
  type GradeFn,
  type GradeInput,
  type GradeOutput,
  type Injection,
  type InjectionPoint,
  type ModelRequest,
  type SessionSettings,
  type SessionSpec,
  type SessionToolOutcome,
  type Shape,
  type SideEffect,
  type SingleCallSpec,
  type SuiteBase,
  type SuiteConfigBase,
  type SuiteDefinition,
  type SuiteReport,
  type ToolContext,
  type ToolOutcome,
  type WorkerLimits,
  type WorkerProgress,
  type WorkerStopRule,
} from '../harness/suite/index.js';
export {
  all,
  any,
  closedQa,
  contains,
  equals,
  exact,
  factuality,
  gradeSample,
  icontains,
  isJson,
  isScorer,
  javascript,
  jsonField,
  jsonSchema,
  JsonSchemaError,
  levenshtein,
  levenshteinDistance,
  modelGraded,
  named,
  numeric,
  overlap,
  regex,
  ScorerOptionError,
  similar,
  similarityRatio,
  weighted,
  type AnyScorer,
  type JavascriptCheck,
  type JavascriptResult,
  type JudgedScorer,
  type JudgePort,
  type JudgeReply,
  type JudgeSample,
  type ModelGrader,
  type NumericOptions,
  type PresetOptions,
  type RegexArgument,
  type SchemaArgument,
  type ScoreContext,
  type Scorer,
  type Verdict,
  type WeightedOptions,
} from '../graders/index.js';
export { defineTool, parseToolArguments, toolError, toolResult } from './tools.js';
// The short form of a suite, and zod's `z` so a user's project needs no zod of its own.
export {
  defineEval,
  EvalDataChangedError,
  EvalSpecError,
  EvalTaskFunctionError,
  type EvalCase,
  type EvalDefaults,
  type EvalModel,
  type EvalSpec,
  type EvalSuite,
  type EvalTaskFunction,
} from '../suites/eval/index.js';
export { z } from 'zod';
export type { ChatMessage, ToolSpec } from '../providers/chat.js';
export type { Player, PlayerContext, PlayerReply, PlayerToolCall } from '../providers/scripted/index.js';
export { rebuild, replay, resume, run, type AnySuite, type EndpointOptions, type ResumeOptions, type RunOptions, type RunResult } from './run.js';
export type { ReplayReport } from '../harness/orchestration/replay-resume.js';
export { writeOutputs, type RunOutputs } from '../projections/outputs.js';
export { connectJetStreamLog, openFileLog } from './logs.js';
export { FileEventLog, type FileEventLogOptions } from '../log/file/index.js';
export { JetStreamEventLog, type JetStreamLogOptions } from '../log/jetstream/index.js';
export type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from '../log/index.js';
export { EVENT_TYPES, EvalogEventSchema, type DataOf, type EvalogEvent, type EventOf, type EventType, type StoredEvent } from '../events/index.js';
export { UserError } from '../core/errors.js';

// For suite plugins: what the built-in studies (packages/suite-*) use, which import nothing else of
// evalog. A plugin's suites, its CLI part (run flags, endpoint variables, the binding of recorded
// runs, its own commands), its report folded from the rows' canonical core, and the parts its
// graders and statistics share with evalog's own.
export {
  combinedBinding,
  DEFAULT_MAX_RETRY_AFTER_MS,
  definePlugin,
  EXIT,
  InputError,
  intFlag,
  parseCommandArgs,
  runSteps,
  type AppliedRunFlags,
  type CliIO,
  type CliKit,
  type Command,
  type ComputeSpec,
  type EndpointEnv,
  type GradedWorkspace,
  type ReportHeader,
  type RunBinding,
  type RunFlagOption,
  type RunFlags,
  type Steps,
  type SuiteCli,
  type SuiteCommand,
  type SuitePlugin,
  type WorkspaceSpec,
} from '../harness/suite/index.js';
export * from '../harness/suite/row-core.js';
export type { ModelEndpoint } from '../harness/endpoint/endpoint.js';
export { ConfigError } from '../harness/orchestration/config.js';
export { loadRecording } from '../harness/orchestration/recording.js';
export { assertNever } from '../core/never.js';
export { canonicalJson, hashOf, sha256 } from '../core/canonical.js';
export { InjectionKind, isHarnessStopReason, RunId, type ToolCallRequest, type Usage } from '../events/index.js';
export { GRADER_VERSION, gradeAnswer } from '../graders/overlap.js';
export { messageText, type ChatRequest } from '../providers/scripted/index.js';
export {
  ARM_MAP_SUMMARY_LAYOUT,
  createOutputDir,
  defineOutputs,
  defineReport,
  fold,
  jsonDocument,
  jsonLines,
  OutputExistsError,
  outputFileNames,
  pairedLine,
  rebuildOutputs,
  foldRows,
  reportRows,
  rowFold,
  writeAtomic,
  type BaseRow,
  type ReportOutput,
  type RowFold,
  type StreamSummary,
  type SummaryFold,
  type CoreOf,
  type JobColumns,
  type JobStart,
  type RoutedEvent,
  type SuiteFilesOutput,
  type SummaryLayout,
} from '../projections/index.js';
export { median } from '../projections/summary.js';
export { exists } from '../projections/writer.js';
export { compareArms, type ArmJob, type SideComparison } from '../projections/compare/index.js';
export { aggregateUsage, callRecords, cmp, type CallRow, type FieldTotal, type UsageReport } from '../projections/usage/index.js';
export {
  jsonEqual,
  preview,
  PythonUnavailableError,
  runPythonLimited,
  runPythonSync,
  runSandboxed,
  SandboxUnavailableError,
  type PythonOutcome,
} from '../sandbox/index.js';
export {
  compareCodePoints,
  pairOutcomes,
  pairedSuiteStats,
  PUBLISHED_BOOTSTRAP,
  StatsError,
  type BootstrapOptions,
  type SuiteStats,
} from '../stats/index.js';

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
  contains,
  exact,
  jsonField,
  modelGraded,
  overlap,
  regex,
  type JudgePort,
  type JudgeReply,
  type ModelGrader,
  type Scorer,
  type Verdict,
} from '../graders/index.js';
export { defineTool, parseToolArguments, toolError, toolResult } from './tools.js';
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

// The public API, `import … from 'evalog'`: write a suite (its types, graders, tool helpers), run it
// (run, resume, replay, rebuild), and choose where its events go (the file log or JetStream).
// TODO(lead): defineSuite is not on main yet (branch `suite`): when it lands, add
//   export { defineSuite, type SuiteDefinition, type DefinedSuite } from '../harness/suite/index.js';
// and retire the `Suite` type exported below if the suite API drops it.
export {
  baseConfigShape,
  type AgentSuite, type CaseSpec, type CheckResult, type Delegation, type GradeInput, type GradeOutput, type Suite, type SuiteConfigBase, type SuiteReport, type ToolContext,
  type ToolOutcome, type WorkerLimits,
} from '../harness/suite/index.js';
export { contains, exact, jsonField, modelGraded, overlap, regex, type JudgePort, type JudgeReply, type ModelGrader, type Scorer, type Verdict } from '../graders/index.js';
export { defineTool, parseToolArguments, toolError, toolResult } from './tools.js';
export type { ChatMessage, ToolSpec } from '../providers/chat.js';
export type { Player, PlayerContext, PlayerReply, PlayerToolCall } from '../providers/scripted/index.js';
export { rebuild, replay, resume, run, type AnySuite, type EndpointOptions, type ResumeOptions, type RunOptions, type RunResult } from './run.js';
export type { ReplayReport } from '../harness/replay-resume.js';
export { writeOutputs, type RunOutputs } from '../projections/outputs.js';
export { connectJetStreamLog, openFileLog } from './logs.js';
export { FileEventLog, type FileEventLogOptions } from '../log/file/index.js';
export { JetStreamEventLog, type JetStreamLogOptions } from '../log/jetstream/index.js';
export type { AppendResult, BlobStore, EventLog, Fence, ReadOptions, RunInfo, SubscribeOptions } from '../log/index.js';
export { EVENT_TYPES, EvalogEventSchema, type DataOf, type EvalogEvent, type EventOf, type EventType, type StoredEvent } from '../events/index.js';
export { UserError } from '../core/errors.js';

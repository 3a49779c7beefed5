// The harness's kernel: what every machine and the orchestration stand on — the journal (the one
// way events are written, live, on replay and on resume), the ports a job is given, the injected
// environment (clock, sleep, retry policy), the named errors, a job's record-and-decide lifecycle,
// and the port of the agent gateway. It imports the suite API's types and nothing above it.
export type {
  AgentAttribution,
  AgentEndpoints,
  AgentGateway,
  AgentJobHandlers,
  AgentJobOptions,
  AgentModelReply,
  AgentModelRequest,
  AgentToolReply,
  WireProtocol,
} from './agent-gateway.js';
export { realSleep, type CallSite, type JobOutput, type RemoteJobs, type RetryPolicy, type Sleep } from './env.js';
export { DeterminismViolation, EndOfRecording, RunInterrupted } from './errors.js';
export { decideJob, recordJob, type JobCommand, type RecordJobInput } from './job-lifecycle.js';
export {
  differingFields,
  draft,
  Journal,
  ScopeJournal,
  type AnyDraft,
  type Draft,
  type JournalFence,
  type JournalMode,
  type JournalOptions,
  type RecordedScopes,
} from './journal.js';
export { jobJournal, JobShapeError, type JobInput, type JobJournal, type ProviderPort } from './ports.js';
export { rethrow } from './shared.js';

// The harness, in rooms that import one way (docs/architecture.md): the suite API (suite/,
// agent-spec/) at the bottom, the kernel (kernel/: journal, ports, env, errors, job lifecycle)
// on it, the actor machines of every job shape beside each other above it, and run orchestration
// (orchestration/: launch, replay/resume, retry, regrade, scale-out) on top. Suites and the app
// build on it; it never imports them.
export { ConfigError, resolveConfig, type ConfigOverrides } from './orchestration/config.js';
export { callsNoModel, modelInfo, NO_MODEL, SCRIPTED_MODEL, SCRIPTED_OWNER, type ModelEndpoint } from './endpoint/index.js';
export {
  DeterminismViolation,
  decideJob,
  differingFields,
  draft,
  EndOfRecording,
  jobJournal,
  JobShapeError,
  Journal,
  realSleep,
  recordJob,
  RunInterrupted,
  ScopeJournal,
  type AnyDraft,
  type CallSite,
  type Draft,
  type JobCommand,
  type JobInput,
  type JobJournal,
  type JobOutput,
  type JournalFence,
  type JournalMode,
  type JournalOptions,
  type ProviderPort,
  type RecordedScopes,
  type RecordJobInput,
  type RemoteJobs,
  type RetryPolicy,
  type Sleep,
} from './kernel/index.js';
export {
  collectProvenance,
  executeRun,
  fileHashes,
  loadRecording,
  NoRecordingError,
  NoScriptedPlayersError,
  planRun,
  prepareRecorded,
  replayRun,
  resumeRun,
  ResumeRefusedError,
  retryRun,
  treeHash,
  UnknownSuiteError,
  type ExecuteOptions,
  type Provenance,
  type Recording,
  type ReplayReport,
  type ResumeOptions,
  type RetryOptions,
  type RetryResult,
} from './orchestration/index.js';
export { computeJobMachine, decideComputed } from './compute/index.js';
export { JOB_MACHINES, JobsCrashedError, runJobActor, runMachine, type JobRunner, type RunInput, type RunOutput } from './run/index.js';
export * from './suite/index.js';
export * from './orchestration/scale-out/index.js';

// The harness: the journal, the actor machines of every job shape, the suite API, launching,
// replay and resume, and scale-out workers. Suites and the app build on it; it never imports them.
export { ConfigError, resolveConfig, type ConfigOverrides } from './config.js';
export { callsNoModel, modelInfo, NO_MODEL, SCRIPTED_MODEL, SCRIPTED_OWNER, type ModelEndpoint } from './endpoint.js';
export { realSleep, type CallSite, type JobOutput, type RemoteJobs, type RetryPolicy, type Sleep } from './env.js';
export { jobJournal, JobShapeError, type JobInput, type JobJournal, type ProviderPort } from './ports.js';
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
export { executeRun, NoScriptedPlayersError, planRun, prepareRecorded, type ExecuteOptions } from './launch.js';
export { collectProvenance, fileHashes, treeHash, type Provenance } from './provenance.js';
export { loadRecording, NoRecordingError, type Recording } from './recording.js';
export { replayRun, resumeRun, ResumeRefusedError, UnknownSuiteError, type ReplayReport, type ResumeOptions } from './replay-resume.js';
export { retryRun, type RetryOptions, type RetryResult } from './retry-run.js';
export { computeJobMachine, decideComputed } from './compute/index.js';
export { JOB_MACHINES, JobsCrashedError, runJobActor, runMachine, type JobRunner, type RunInput, type RunOutput } from './run/index.js';
export * from './suite/index.js';
export * from './scale-out/index.js';

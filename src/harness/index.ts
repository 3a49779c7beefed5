// The harness: the journal, the actor machines of every job shape, the suite API, launching,
// replay and resume, and scale-out workers. Suites and the app build on it; it never imports them.
export { ConfigError, resolveConfig, type ConfigOverrides } from './config.js';
export { modelInfo, SCRIPTED_MODEL, SCRIPTED_OWNER, type ModelEndpoint } from './endpoint.js';
export { realSleep, type JobEnv, type JobOutput, type RemoteJobs, type RetryPolicy, type RunEnv, type Sleep } from './env.js';
export { DeterminismViolation, EndOfRecording, RunInterrupted } from './errors.js';
export { decideJob, recordJob, type JobCommand } from './job-lifecycle.js';
export { differingFields, draft, Journal, ScopeJournal, type AnyDraft, type Draft, type JournalFence, type JournalMode, type JournalOptions, type RecordedScopes } from './journal.js';
export { executeRun, NoScriptedPlayersError, planRun, type ExecuteOptions } from './launch.js';
export { collectProvenance, fileHashes, treeHash, type Provenance } from './provenance.js';
export { loadRecording, NoRecordingError, type Recording } from './recording.js';
export { replayRun, resumeRun, ResumeRefusedError, UnknownSuiteError, type ReplayReport, type ResumeOptions } from './replay-resume.js';
export { JobsCrashedError, runMachine, type RunOutput } from './run/machine.js';
export * from './suite/index.js';
export * from './scale-out/index.js';

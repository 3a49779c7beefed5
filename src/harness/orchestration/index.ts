// Run orchestration, the harness's upper room: configuration, launching a run (plan, provenance,
// the run coordinator), replay and resume, retry, regrade and scale-out workers. It drives the
// machines; no machine and nothing in the kernel imports it.
export { ConfigError, resolveConfig, type ConfigOverrides } from './config.js';
export { ConfigFileError, isYamlName, readConfigFile, readConfigFileLines, type ConfigFileText } from './config-file.js';
export { executeRun, NoScriptedPlayersError, planRun, prepareRecorded, type ExecuteOptions } from './launch.js';
export { collectProvenance, fileHashes, treeHash, type Provenance } from './provenance.js';
export { loadRecording, NoRecordingError, type Recording } from './recording.js';
export { replayRun, resumeRun, ResumeRefusedError, UnknownSuiteError, type ReplayReport, type ResumeOptions } from './replay-resume.js';
export { retryRun, type RetryOptions, type RetryResult } from './retry-run.js';
export * from './regrade/index.js';
export * from './retry/index.js';
export * from './scale-out/index.js';

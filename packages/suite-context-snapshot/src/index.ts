// The context-snapshot suite: evalog's own eight synthetic tasks, or the published protocol read
// from the user's copy (--protocol-dir); isolated handoff vs parent-context snapshot.
export { default } from './plugin.js';
export { contextSnapshotCli, contextSnapshotDefinition, contextSnapshotSuite, isProtocolTask, type CsCase } from './suite.js';
export { contextSnapshotPlayer } from './player.js';
export { playProtocolRequest } from './player-generic.js';
export { contextSnapshotReport, csArmJob, summarizeRows, type CsArmSummary, type CsRow, type SummarizableRow } from './report.js';
export { TASK_SHAPES, type Task, type GradeResult } from './manifest.js';
export { loadTasks } from './tasks.js';
export { BUNDLED_PROTOCOL_ID, protocolStatus } from './config.js';
export { ContextSnapshotFlagError, contextSnapshotRunFlags } from './flags.js';
export { loadRecordedProtocol, ProtocolChangedError, protocolOverrides } from './protocol-run.js';
export type { ProtocolTask } from './protocol-prompts.js';
// Its command-line part (run flags, endpoint variables and its own commands, each loaded only when it runs).
export { contextSnapshotSuiteCli } from './cli/index.js';

// The context-snapshot suite: eight synthetic tasks, isolated handoff vs parent-context snapshot.
export { contextSnapshotCli, contextSnapshotDefinition, contextSnapshotSuite } from './suite.js';
export { contextSnapshotPlayer } from './player.js';
export { contextSnapshotReport, summarizeRows, type CsArmSummary, type CsRow, type SummarizableRow } from './report.js';
export { TASK_SHAPES, type Task, type GradeResult } from './manifest.js';
export { loadTasks } from './tasks.js';

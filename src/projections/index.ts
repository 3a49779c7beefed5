// The folds over a run's events and the files they publish.
export {
  agentEnding,
  agentFailureOf,
  agentFailuresFold,
  agentOutput,
  FAILED_AGENT_REASONS,
  type AgentExit,
  type AgentFailure,
  type AgentOutput,
} from './agent-output.js';
export { neutralise, streamTail, tailNote, TAIL_LIMITS, type StreamTail, type TailLimits } from './stream-tail.js';
export { DIFF_LIMITS, diffSummary, workspaceDiffHead, workspacesFold, type DiffHead, type DiffLimits, type RecordedWorkspace } from './workspace-diff.js';
export { artifactsProjection, type ArtifactFile, type ArtifactsState } from './artifacts.js';
export { baseRowsProjection, type BaseRow, type JobStart, type StopReason } from './base-row.js';
export type { JobColumns, RowsState } from './columns.js';
export { deriveOutputs, OUTPUT_FILES, outputFileNames, rebuildOutputs, RunNotFoundError, writeOutputs, type RunOutputs } from './outputs.js';
export { defineOutputs, type OutputFile, type OutputsSpec, type SuiteFilesOutput, type SuiteFilesRun, type SuiteOutputs } from './suite-outputs.js';
export { progressProjection, type LiveProgress } from './progress.js';
export {
  defineReport,
  ReportFileNameError,
  reportRows,
  type OutputHooks,
  type OutputHooksOf,
  type ReportFile,
  type ReportHeader,
  type ReportOutput,
  type ReportRun,
  type ReportSpec,
  type ReportSpecBase,
  type ReportStream,
  type StreamSummary,
  type SummaryOf,
  type SuiteReport,
} from './report.js';
export * from './fold/index.js';
export { genericColumns, rowsProjection, type Row, type RowUsage } from './rows.js';
export { genericSummaryFold, summarize, summaryFold, type Summary } from './summary.js';
export { foldRows, rowFold, type RowFold, type SummaryFold, type SummaryRun } from './row-fold.js';
export { STREAM_LIMITS, streamOutputs, SortedSpill, type PublishedOutputs, type SpillSpec, type StreamLimits, type WrittenOutputs } from './stream/index.js';
export { ALL_PAIRS_MAX_ARMS, type SideComparison } from './compare/index.js';
export { pairedLine, summaryTable } from './table.js';
export { jobStatesProjection, type JobStates } from './job-states.js';
export { createOutputDir, jsonDocument, jsonLines, OutputExistsError, removeStaleTemps, writeAtomic } from './writer.js';
export { rowsCsv } from './rows-csv.js';
export { checkedCore, namedCore, NoRowCoresError, RowCoreError, type CoreOf, type JobCore, type RowCore } from './row-core.js';
export { ARM_MAP_SUMMARY_LAYOUT, GENERIC_SUMMARY_LAYOUT, type SummaryGroup, type SummaryLayout } from './summary-layout.js';

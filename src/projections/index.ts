// The folds over a run's events and the files they publish.
export { artifactsProjection, type ArtifactFile } from './artifacts.js';
export { deriveOutputs, OUTPUT_FILES, rebuildOutputs, RunNotFoundError, writeOutputs, type RunOutputs } from './outputs.js';
export { fold, type Projection } from './projection.js';
export { provenanceProjection, type RunFile } from './provenance.js';
export type { OutputHooks, OutputHooksOf, ReportHeader, SuiteReport } from './report.js';
export { rowsProjection, type Row } from './rows.js';
export { summarize, type Summary } from './summary.js';
export { summaryTable } from './table.js';
export { jobStatesProjection, type JobStates } from './job-states.js';
export { createOutputDir, jsonDocument, jsonLines, OutputExistsError, writeAtomic } from './writer.js';

// The context-engineering suite: frozen cells × four scenarios, scored on final state and evidence.
export { default } from './plugin.js';
export { contextEngineeringCli, contextEngineeringDefinition, contextEngineeringSuite } from './suite.js';
export { contextEngineeringPlayer } from './player.js';
export { ContextEngineeringConfig, defaultConfig, type Cell } from './config.js';
export { loadScenarios, type Scenario } from './scenarios.js';
export { evolveEnvironment, initialEnvironment, type CeEnvironment } from './environment.js';
export { scoreScenario } from './scoring.js';
export { ceArmJob, summarizeCe, ceTable, type CeSummary, type CeCellSummary } from './report.js';
export { cellRollups, distribution, repetitionFile, repetitionReports, type CeCellRollup, type CeRepetitionUsage, type Distribution } from './rollup.js';
export { ceRows, type CeRow } from './rows.js';
export { describeCellChanges } from './resume.js';

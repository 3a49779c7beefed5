// The dataset suite: the everyday eval of a JSONL file of cases, a prompt template and a grader.
export { datasetCli, datasetDefinition, datasetSuite, type DatasetSuiteOptions } from './suite.js';
export { datasetPlayer } from './player.js';
export { DatasetConfig, DATASET_DEFAULTS, armTable, modelLabel, promptVariants, type ArmSpec } from './config.js';
export { datasetCases, datasetRequest, loadCaseFile, type DatasetCase } from './cases.js';
export { readCaseFile, readPinnedCaseFile, fileSha256, type CaseFile, type RawCase, type CaseMessage } from './case-file.js';
export { grade, parseGrader, expectedProblem, GRADER_NAMES, type Grader, type Verdict } from './graders.js';
export { templateVars, missingVars, renderTemplate } from './template.js';
export { datasetRunFlags } from './flags.js';
export { datasetConfig, type DatasetConfigInput } from './make-config.js';
export { DatasetSuiteError, CaseLineError, DataChangedError } from './errors.js';

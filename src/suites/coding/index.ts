// The coding suite: tiny repositories, an agent that edits their files, hidden tests that grade them.
export { codingDefinition, codingSuite, type CodingConfig } from './suite.js';
export { codingPlayer, toolboxFor } from './player.js';
export { CODING_MANIFESTS, CodingCaseError, isVisibleTest, loadCodingCases, TASK_FILE, type CodingCase } from './cases.js';
export { fileDiff, workspaceDiff, type FileDiff } from './diff.js';
export { gradeCoding, HIDDEN_DIR, hiddenCheckId } from './grade.js';
export { readStatement, ruleBody, solution, type Example, type FunctionSpec, type Statement } from './player-rules.js';
export { actionOfCall, callOf, quote, toolboxOf, type Action, type Toolbox } from './player-tools.js';
export { agentMessages, ARM_MODES, briefOf, parentMessages, pointerBrief, TAGS, WORKSPACE_TOOLS, workerMessages } from './prompts.js';
export { runWorkspaceTool, visibleTestReport } from './tools.js';
export { applied, changesArtifact, changesOf, pathRefusal, withWrite, WORKSPACE_LIMITS, type Changes } from './workspace.js';

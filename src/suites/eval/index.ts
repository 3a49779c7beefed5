// The short form of a suite: `defineEval({ name, data, task, scorers })`.
export { defineEval, evalDefinition, SCORE_CHECK, type EvalCaseData, type EvalSuite } from './suite.js';
export type { EvalCase, EvalDefaults, EvalModel, EvalSpec, EvalTaskFunction } from './spec.js';
export { checkedSpec, type CheckedSpec } from './check-spec.js';
export { EvalConfig, EVAL_BASE_DEFAULTS, evalArms, modelLabel, type EvalArm } from './config.js';
export { casesOfValues, dataFileSha256, readPinnedData, DATA_EXTENSIONS, type LoadedCase } from './data.js';
export { evalRunFlags } from './flags.js';
export { EvalDataChangedError, EvalDataLineError, EvalSpecError, EvalTaskFunctionError } from './errors.js';

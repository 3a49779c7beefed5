// A promptfoo config (promptfooconfig.yaml) run as an evalog suite: compiled into the short form's spec.
export { compilePromptfoo, isYamlPath, suiteName, CONFIG_KEYS, type CompiledPromptfoo } from './compile.js';
export { PromptfooConfigError } from './errors.js';
export { ASSERT_TYPES, JUDGED_TYPES, type AssertType, type CompiledAssert, type PromptfooExpected } from './assert-types.js';
export { promptfooScorer, caseScorer, PROMPTFOO_CHECK_ID } from './scorer.js';
export { modelOf } from './providers.js';
export { assertOfCell } from './expected-cell.js';
export { compileJsCheck, runJsCheck, JS_CHECK_TIMEOUT_MS } from './js-check.js';
export { jsonIn } from './scorers-extra.js';

// Graders as reusable scorers: deterministic ones (pure functions of output and expected), the
// model-graded judge and its presets, whose calls the harness sends and records through a JudgePort,
// and combinations of both.
export { exact, jsonField, overlap } from './scorers.js';
export { contains, equals, icontains, regex, type RegexArgument } from './scorers-text.js';
export { isJson, jsonSchema, type SchemaArgument } from './scorers-json.js';
export { compileJsonSchema, JsonSchemaError, CHECKED_KEYWORDS, ANNOTATION_KEYWORDS, type CompiledSchema, type SchemaIssue } from './json-schema.js';
export { numeric, numbersIn, type NumberInText, type NumericOptions } from './scorers-numeric.js';
export { levenshtein, levenshteinDistance, similar, similarityRatio, DEFAULT_SIMILARITY, type LevenshteinOptions, type SimilarOptions } from './similarity.js';
export { javascript, type JavascriptCheck, type JavascriptOptions, type JavascriptResult } from './scorers-js.js';
export { all, any, gradeSample, isScorer, named, weighted, type WeightedOptions } from './combine.js';
export { expectedText, ScorerOptionError, unfence } from './kit.js';
export { modelGraded, parseVerdict, judgeMessages, JUDGE_FORMAT, MODEL_CHECK_ID, type ModelGrader, type JudgeVerdict } from './model-graded.js';
export { closedQa, closedQaRubric, factuality, CLOSED_QA_RUBRIC, FACTUALITY_RUBRIC, type PresetOptions } from './presets.js';
export { scriptedJudgePlayer, SCRIPTED_MALFORMED } from './scripted-judge.js';
export { gradeAnswer, GRADER_VERSION, EmptyReferenceError, type Grade, type GradeRule } from './overlap.js';
export { normalize, NUMBER_WORDS, STOPWORDS } from './normalize.js';
export type { AnyScorer, JudgedScorer, JudgePort, JudgeReply, JudgeSample, ScoreContext, Scorer, Verdict } from './types.js';

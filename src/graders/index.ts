// Graders as reusable scorers: deterministic ones (pure functions of output and expected) and the
// model-graded judge, whose calls the harness sends and records through a JudgePort.
export { exact, contains, regex, jsonField, overlap, expectedText, unfence } from './scorers.js';
export { modelGraded, parseVerdict, judgeMessages, JUDGE_FORMAT, MODEL_CHECK_ID, type ModelGrader, type JudgeVerdict } from './model-graded.js';
export { scriptedJudgePlayer, SCRIPTED_MALFORMED } from './scripted-judge.js';
export { gradeAnswer, GRADER_VERSION, EmptyReferenceError, type Grade, type GradeRule } from './overlap.js';
export { normalize, NUMBER_WORDS, STOPWORDS } from './normalize.js';
export type { Verdict, Scorer, JudgePort, JudgeReply, JudgeSample } from './types.js';

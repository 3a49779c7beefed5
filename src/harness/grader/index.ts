// The grader: the suite's hidden checks (and model-graded judge calls), blind to the arm, recorded.
export { gradeAndRecord, judgePort, type GradePorts } from './grade.js';
export { decideGrade } from './logic.js';
export { graderMachine, type GraderInput } from './machine.js';

// The single-call job shape: one answerer call, graded right after it when the suite grades answers.
export { singleCallJobMachine } from './machine.js';

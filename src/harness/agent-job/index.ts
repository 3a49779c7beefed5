// The agent job shape: parent → worker → grader.
export { jobMachine } from './machine.js';

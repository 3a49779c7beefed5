// The compute job shape: a job without a model, whose result is a pure function recorded as one event.
export { decideComputed } from './logic.js';
export { computeJobMachine } from './machine.js';

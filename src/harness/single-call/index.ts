// A job of one model call, as one promise actor.
export { singleCallJob, singleCallJobMachine, SINGLE_CALL_STEPS, type SingleCallSteps } from './machine.js';

// The run coordinator: plans the jobs, runs each through its shape's machine, records the run's end.
export { JOB_MACHINES, runJobActor } from './jobs.js';
export { decideRun, planJobs, type RunCommand, type RunProgress } from './logic.js';
export { JobsCrashedError, runMachine, type JobRunner, type RunInput, type RunOutput } from './machine.js';
export { breakerStart, noteJobEnd, type BreakerOptions, type BreakerState } from './breaker.js';

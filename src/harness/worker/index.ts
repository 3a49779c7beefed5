// The worker agent role: its loop of model turns and tools, until it answers or a limit stops it
// (the harness's own, or the suite's stop rule: see harness/suite/stop-rule.ts).
export { nextStep, runTools, stopWorker, workerActor } from './effects.js';
export { decideWorker, evolveWorker, initialWorkerState, nextWorkerStep, stopAnswer, type WorkerCommand, type WorkerState, type WorkerStep } from './logic.js';
export { workerMachine, type DeadlineInput, type WorkerInput } from './machine.js';

// The worker agent role: its loop of model turns and tools, until it answers or a limit stops it.
export { runTools, stopWorker, workerActor } from './effects.js';
export { decideWorker, evolveWorker, initialWorkerState, nextWorkerStep, type WorkerCommand, type WorkerState, type WorkerStep } from './logic.js';
export { workerMachine, type WorkerInput } from './machine.js';

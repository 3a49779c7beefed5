// The worker agent role: its loop of model turns and tools, until it answers or a limit stops it.
export { nextStep, runTools, stopWorker, workerActor } from './effects.js';
export { decideWorker, evolveWorker, initialWorkerState, nextWorkerStep, stopAnswer, type WorkerCommand, type WorkerState, type WorkerStep } from './logic.js';
export { workerMachine, type DeadlineInput, type WorkerInput } from './machine.js';
export { answerSteps, maxModelTurns, modelStep, roundSteps, stepVerdict, SUBAGENT_GRAPH, toolsStep, type GraphShape, type StepVerdict } from './steps.js';

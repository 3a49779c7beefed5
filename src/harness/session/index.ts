// The session job shape: one main agent loop on a fixture environment, with queries, injections and a budget.
export { sessionJobMachine } from './job.js';
export { sessionMachine } from './machine.js';
export { WorkerKilled, rebuildSession, runSessionTool, type SessionToolRun } from './effects.js';
export { decideSession, evolveSession, initialSessionState, nextSessionStep, type SessionCommand, type SessionState, type SessionStep } from './logic.js';
export type { QueryReply } from './queries.js';

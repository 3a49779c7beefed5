// The parent (lead agent) role: one model call with the task tool, then the handoff to the worker (or a refusal).
export { decideDelegation, evolveParent, initialParentState, type ParentState } from './logic.js';
export { parentMachine, type ParentInput, type ParentOutput } from './machine.js';

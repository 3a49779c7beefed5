// `import … from 'evalog/testing'`: what a suite's own tests need: an in-memory event log (the same
// EventLog contract as the file and JetStream logs), the scripted model playing the suite, and
// given/when/then for deciders.
export { MemoryEventLog, MemoryStore } from '../../log/memory/index.js';
export { runScripted, startScriptedFor, type RunScriptedOptions } from './scripted.js';
export { deciderSpec, ev, type Decider, type Expected } from './decider.js';
export type { ScriptedModel, ScriptedModelOptions } from '../../providers/scripted/index.js';

// Where a run's model calls go (the scripted model or an OpenAI-compatible endpoint) and how the
// log records it: names of variables, never values. A room of its own so that the suite API's
// command-line contract and the kernel can both name it without importing each other.
export { callsNoModel, modelInfo, NO_MODEL, SCRIPTED_MODEL, SCRIPTED_OWNER, type ModelEndpoint } from './endpoint.js';

// How an external agent is described (flag, config, limits), below the suite layer that records it
// in a run's config and the external-agent jobs that run it.
export { AgentConfig, checkPassThrough, passThroughRefusal, REFUSED_PASS_THROUGH, REFUSED_PREFIXES, REFUSED_WORDS } from './config.js';
export { AgentConfigError, AgentFlagError, parseAgentFlag } from './flag.js';
export type { AgentCommandSpec, AgentLimits } from './types.js';

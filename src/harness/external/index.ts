// External agents: a job kind whose agent is a process of the user's (any language), its model
// calls through a loopback recording proxy and its tools over MCP, all recorded as the job's events.
// The gateway (gateway.ts, mcp.ts) is not exported here: lazyGateway imports it when a job needs it.
export { AgentCommandError, changedAgentFiles, resolveAgentCommand, type AgentFile, type ResolvedAgent } from './command.js';
export { runExternalAgent, type AgentRunInput, type AgentRunOutput } from './effects.js';
export { lazyGateway, type GatewayLease } from './gateway-lease.js';
export { agentActor, agentCallName, agentLimitsOf, isAgentCall, stopReasonOf, failsJob, type AgentJobState, type AgentTaskFile } from './logic.js';
export { agentJobSetting, externalJobMachine, NoGatewayError } from './machine.js';
export { agentChanges, agentProvenance, agentsOfConfig, AGENTS_KEY, type AgentRecord } from './provenance.js';
export { AgentDivergedError, AgentRecorder } from './recorder.js';
export { AgentSession, recordedToolCall, sessionAttempts, sessionBreach, settingsWithLimits, type AgentSessionInput } from './session.js';
export type * from '../kernel/agent-gateway.js';

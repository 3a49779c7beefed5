import type { AgentGateway } from '../kernel/agent-gateway.js';

/** A process's agent gateway, started when the first external-agent job asks for it and closed with the run. */
export interface GatewayLease {
  get: () => Promise<AgentGateway>;
  close(): Promise<void>;
}

// The gateway and its MCP server (the SDK, its HTTP server and JSON-schema validator) are imported
// when the first external-agent job starts: a run without agents never loads them.
const startGateway = async (): Promise<AgentGateway> => (await import('./gateway.js')).startAgentGateway();

/** Runs without external agents never open a port. */
export function lazyGateway(start: () => Promise<AgentGateway> = startGateway): GatewayLease {
  let started: Promise<AgentGateway> | null = null;
  return {
    get: () => {
      started ??= start();
      return started;
    },
    close: async () => {
      if (started) await (await started).close();
    },
  };
}

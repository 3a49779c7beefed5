import { startAgentGateway } from './gateway.js';
import type { AgentGateway } from './types.js';

/** A process's agent gateway, started when the first external-agent job asks for it and closed with the run. */
export interface GatewayLease {
  get: () => Promise<AgentGateway>;
  close(): Promise<void>;
}

/** Runs without external agents never open a port. */
export function lazyGateway(start: () => Promise<AgentGateway> = startAgentGateway): GatewayLease {
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

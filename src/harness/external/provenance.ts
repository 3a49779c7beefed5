// What run.json records of a run's external agents, and resume's check that they did not change.
import type { SuiteConfigBase } from '../suite/types.js';
import { AgentCommandError, changedAgentFiles, resolveAgentCommand, type AgentFile } from './command.js';
import type { AgentCommandSpec } from '../kernel/agent-gateway.js';

/** Key of `RunStarted.provenance` that holds the agents. */
export const AGENTS_KEY = 'agents';

/** One agent as provenance records it: the command as configured, its folder, and the files it names by hash. */
export interface AgentRecord {
  command: string[];
  cwd: string;
  files: AgentFile[];
}

/** The run's agents by name (`agent` for a single --agent), or null when it has none. */
export function agentsOfConfig(config: SuiteConfigBase): Record<string, AgentCommandSpec> | null {
  if (config.agent) return { agent: config.agent };
  return config.agents ?? null;
}

/** Resolves every agent of the config (AgentCommandError when one cannot run here) and records it. */
export async function agentProvenance(config: SuiteConfigBase): Promise<Record<string, AgentRecord> | null> {
  const agents = agentsOfConfig(config);
  if (!agents) return null;
  const out: Record<string, AgentRecord> = {};
  for (const name of Object.keys(agents).sort()) {
    const spec = agents[name]!;
    const { files } = await resolveAgentCommand(spec, { agent: name });
    out[name] = { command: spec.command, cwd: spec.cwd, files };
  }
  return out;
}

/**
 * Why the recorded agents cannot run again as they were, one line per agent: a file the command
 * names changed (or is gone), or its program is not found here. Empty when they can.
 */
export async function agentChanges(config: SuiteConfigBase, recorded: Record<string, AgentRecord> | undefined): Promise<string[]> {
  const agents = agentsOfConfig(config);
  if (!agents || !recorded) return [];
  const out: string[] = [];
  for (const name of Object.keys(agents).sort()) {
    let files: AgentFile[];
    try {
      files = (await resolveAgentCommand(agents[name]!, { agent: name })).files;
    } catch (err) {
      if (!(err instanceof AgentCommandError)) throw err;
      out.push(err.message);
      continue;
    }
    const changed = changedAgentFiles(recorded[name]?.files ?? [], files);
    if (changed.length > 0) out.push(`agent ${name}: ${changed.join(', ')} changed since the run started`);
  }
  return out;
}

// `--agent` of `evalog run`: one unnamed agent in place of the built-in one, or named agents as the arms.
import { AgentFlagError, parseAgentFlag, type AgentCommandSpec } from '../harness/agent-spec/index.js';
import { InputError } from './io.js';

export const AGENT_OPTION = { agent: { type: 'string', multiple: true } } as const;

export const AGENT_HELP = `  --agent "CMD ARGS"    run this external agent in place of the built-in one (one process
                        per job; its model calls go through a recording proxy, its tools
                        over MCP; see docs/agents.md)
  --agent NAME="CMD"    agents as the arms of the run, compared paired (repeatable)`;

/** Config overrides from `--agent` values; relative file arguments resolve from `cwd`. */
export function agentOverrides(values: readonly string[] | undefined, cwd: string): { agent?: AgentCommandSpec; agents?: Record<string, AgentCommandSpec> } {
  if (!values || values.length === 0) return {};
  const parsed = values.map((v) => {
    try {
      return parseAgentFlag(v);
    } catch (err) {
      throw err instanceof AgentFlagError ? new InputError(`evalog run: ${err.message}`, { cause: err }) : err;
    }
  });
  const spec = (command: string[]): AgentCommandSpec => ({ command, cwd, env: [] });
  const unnamed = parsed.filter((p) => p.name === null);
  if (unnamed.length > 0) {
    if (parsed.length > 1)
      throw new InputError('evalog run: --agent is given more than once, so each must be named: --agent NAME="CMD ARGS" (agents as the arms)');
    return { agent: spec(unnamed[0]!.command) };
  }
  const agents: Record<string, AgentCommandSpec> = {};
  for (const p of parsed) {
    if (agents[p.name!]) throw new InputError(`evalog run: --agent ${p.name} is given twice`);
    agents[p.name!] = spec(p.command);
  }
  return { agents };
}

// What an external agent is, as a config names it: no behaviour here, so the suite layer can hold it.

/** Limits of one external-agent job, enforced by the proxy (calls, tokens) and the process runner (time). */
export interface AgentLimits {
  /** Model requests the agent may make (every attribution); past it the proxy refuses. */
  modelCalls: number;
  /** Reported total tokens the agent may use; null = no token budget. */
  tokens: number | null;
  /** Wall time of the agent's process; at it the process group is killed. */
  timeLimitMs: number;
}

/** An external agent as configured: argv, the folder its relative paths resolve from, variables passed through. */
export interface AgentCommandSpec {
  command: string[];
  /** Where relative file arguments of `command` are found (the folder evalog was started in, by default). */
  cwd: string;
  /** Names of variables of evalog's environment the agent may see (never an endpoint's key). */
  env: string[];
  limits?: Partial<AgentLimits>;
}

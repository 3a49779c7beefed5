// Names of a retried job's later attempts. A job's attempts share its event stream, so the causal
// names of their effects (model calls, tool calls) carry the attempt: no name is given twice in a
// job, replay and resume match each recorded outcome to its own attempt, and usage.json lists every
// attempt's calls apart. The first attempt's names are bare, so logs without a retry are unchanged.

const PREFIX = /^try-(\d+)\//;

/** The causal name `name` within attempt `attempt` of its job. */
export function attemptName(attempt: number | undefined, name: string): string {
  return attempt === undefined || attempt <= 1 ? name : `try-${attempt}/${name}`;
}

/** The attempt a causal name (a callId) belongs to: 1 for a bare name. */
export function attemptOfName(name: string): number {
  const m = PREFIX.exec(name);
  return m ? Number(m[1]) : 1;
}

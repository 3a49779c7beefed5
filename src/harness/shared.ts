import type { CaseSpec } from './suite/types.js';
import type { JobEnv } from './env.js';

/** Ends a machine with the error its invoked child failed with, so the job reports it. */
export function rethrow({ event }: { event: unknown }): never {
  throw (event as { error?: unknown }).error;
}

/** The case of a job, looked up in the suite. */
export function caseOf(env: JobEnv): CaseSpec<unknown> {
  const c = env.cases.get(env.job.caseId);
  if (!c) throw new Error(`case ${env.job.caseId} is not in suite ${env.suite.name}`);
  return c;
}

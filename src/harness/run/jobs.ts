import { createActor, toPromise } from 'xstate';
import { singleCallJobMachine } from '../single-call/machine.js';
import { jobMachine } from '../agent-job/machine.js';
import { sessionJobMachine } from '../session/job.js';
import type { JobOutput } from '../kernel/env.js';
import type { JobInput } from '../kernel/ports.js';
import { externalJobMachine } from '../external/machine.js';
import { computeJobMachine } from '../compute/machine.js';
import type { JobKind } from '../suite/define.js';

/**
 * The job machine of each kind (a shape, or an external agent): the one table the coordinator spawns from and scale-out workers
 * run from. Each takes a JobInput (the hooks of its own shape) and outputs a JobOutput; a new
 * shape that is not in the table fails to compile.
 */
export const JOB_MACHINES = {
  agent: jobMachine,
  'single-call': singleCallJobMachine,
  session: sessionJobMachine,
  external: externalJobMachine,
  compute: computeJobMachine,
} as const satisfies { [K in JobKind]: unknown };

/** Runs one job to its end with its shape's machine, outside a coordinator (a scale-out worker). */
export function runJobActor(input: JobInput): Promise<JobOutput> {
  return toPromise(createActor(JOB_MACHINES[input.hooks.shape], { input }).start());
}

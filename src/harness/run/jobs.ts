import { singleCallJobMachine } from '../single-call/machine.js';
import { jobMachine } from '../agent-job/machine.js';
import { sessionJobMachine } from '../session/job.js';
import type { Suite } from '../suite/types.js';

/** The job machine of a suite's job shape; all take `{ env: JobEnv }` and output a JobOutput. */
export function jobMachineFor(shape: Suite['jobShape']): typeof jobMachine {
  // The three machines share input and output types; the cast only forgets their internal states.
  if (shape === 'single-call') return singleCallJobMachine as unknown as typeof jobMachine;
  if (shape === 'session') return sessionJobMachine as unknown as typeof jobMachine;
  return jobMachine;
}

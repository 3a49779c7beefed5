// Running one of evalog's own Python scripts on untrusted input (say, an artifact's code on stdin)
// under limits: a CPU budget the kernel enforces, a wall-clock backstop far above it, and an empty
// temporary folder of its own as cwd. What the script does with the input, and what a run over
// either limit means, is the caller's.
//
// The budget is CPU time, not wall time (issue 37): a wall limit counts python3's start-up (about
// 0.3 s of CPU) and every moment the process waits for a core, so on a loaded machine a script that
// was fine ran out of it. The kernel's RLIMIT_CPU counts only what the process itself runs, so the
// outcome is the same under any load. The wall limit stays, far above, against a stalled machine.
//
// NOT an operating-system sandbox: the script runs in a plain `python3 -I` child (only PATH and an
// encoding in its environment), with no memory cap and no file-system or network barrier. Whatever
// keeps the input in check is the script's own business.
import { rm } from 'node:fs/promises';
import { makeOwnedTemp } from './owned-temp.js';
import { runPython, type PythonOutcome } from './python.js';

/**
 * Python run before the script: SIGXCPU once the process has used `seconds` of CPU time, start-up
 * included; SIGKILL a second later (never lowering a hard limit already set). No core dump either,
 * which a process the limit ends would otherwise leave. It defines no name the script can see.
 */
const limitPreamble = (seconds: number): string => `
def _evalog_limit_cpu(seconds):
    import resource
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cap = (lambda n: n) if hard == resource.RLIM_INFINITY else (lambda n: min(n, hard))
    resource.setrlimit(resource.RLIMIT_CPU, (cap(seconds), cap(seconds + 1)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_evalog_limit_cpu(${seconds})
del _evalog_limit_cpu
`;

/** One limited run: the script (run as `python3 -I -c`), its argv after it, its stdin and its limits. */
export interface LimitedPythonRun {
  script: string;
  args?: readonly string[];
  input: string;
  /** CPU seconds, whole (as RLIMIT_CPU counts them), at least 1. */
  cpuSeconds: number;
  /** The wall-clock backstop, in milliseconds. */
  wallMs: number;
  /**
   * What the temporary folder's name starts with: one kind of folder per caller, so the ones a
   * killed process left are removed by a later one of the same kind (see owned-temp.ts).
   */
  tempPrefix: string;
}

/** What the run did. `cpuExceeded`: the kernel ended it at the CPU budget; `timedOut`: killed at the wall limit. */
export interface LimitedPythonOutcome extends PythonOutcome {
  cpuExceeded: boolean;
}

/**
 * Runs `script` under the limits, in a fresh python3 process whose cwd is an empty folder of its
 * own (removed afterwards). Throws RangeError for a CPU budget that is not a whole number of
 * seconds, PythonUnavailableError when python3 cannot start; anything the script does is in the
 * outcome.
 */
export async function runPythonLimited(run: LimitedPythonRun): Promise<LimitedPythonOutcome> {
  const { cpuSeconds } = run;
  if (!Number.isInteger(cpuSeconds) || cpuSeconds < 1) throw new RangeError(`cpuSeconds: a whole number of seconds, at least 1 (got ${cpuSeconds})`);
  // An empty folder of its own, so nothing beside the script (a stray json.py, earlier output) is
  // within reach; named for this process, so one a kill left behind is removed by a later evalog.
  const cwd = await makeOwnedTemp(run.tempPrefix);
  try {
    const out = await runPython({ script: limitPreamble(cpuSeconds) + run.script, args: run.args ?? [], input: run.input, timeoutMs: run.wallMs, cwd });
    // SIGXCPU is the kernel's signal at the CPU limit. (Its SIGKILL a second later reaches only a
    // script that catches SIGXCPU; it reads as neither limit, like the OOM killer's.)
    return { ...out, cpuExceeded: !out.timedOut && out.signal === 'SIGXCPU' };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

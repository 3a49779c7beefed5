// Commands made of steps (a suite's `evalog <suite> <step>`): one dispatch, so help, a missing step
// and an unknown one behave the same in each.
import { EXIT, InputError, type CliIO } from './command.js';

/** A command's steps by name. */
export type Steps = Record<string, (args: string[], io: CliIO) => Promise<number>>;

/**
 * Runs `args[0]` of `steps`. No step prints the help and exits 2 (`--help` alone exits 0); an unknown
 * step is an InputError naming the known ones; `--help` after a step prints that step's help.
 */
export function runSteps(command: string, steps: Steps, help: (step?: string) => string, args: string[], io: CliIO): Promise<number> {
  const [step, ...rest] = args;
  if (!step || step === '--help' || step === '-h') {
    io.stdout.write(help());
    return Promise.resolve(step ? EXIT.ok : EXIT.badInput);
  }
  const run = steps[step];
  if (!run) throw new InputError(`evalog ${command}: unknown step ${JSON.stringify(step)} (${Object.keys(steps).join(', ')})`);
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(help(step));
    return Promise.resolve(EXIT.ok);
  }
  return run(rest, io);
}

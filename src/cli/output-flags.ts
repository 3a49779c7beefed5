import type { Writable } from 'node:stream';
import type { OutputMode } from '../harness/suite/index.js';
import { InputError, type CliIO } from './io.js';

/** The flags of every command that runs jobs and shows their progress (run, resume, the steps). */
export const OUTPUT_OPTIONS = {
  verbose: { type: 'boolean' },
  quiet: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

/** Help lines for the output flags. */
export const OUTPUT_HELP = `Output:
  --verbose             also print one line per finished job
  --quiet               print only errors and the final table
  --json                print the summary (summary.json) as JSON on stdout instead of the table
Progress is one live line on a terminal, one line every 10 s otherwise; colour on terminals
(NO_COLOR turns it off, FORCE_COLOR on).`;

/** How a command shows its progress and its result (the suite contract's, which a suite's commands use too). */
export type { OutputMode } from '../harness/suite/index.js';

/** The output mode from the flags and, for colour, the environment and the stream. */
export function outputMode(command: string, values: { verbose?: boolean; quiet?: boolean; json?: boolean }, io: CliIO): OutputMode {
  if (values.verbose && values.quiet) throw new InputError(`evalog ${command}: --verbose and --quiet exclude each other`);
  return { verbose: values.verbose === true, quiet: values.quiet === true, json: values.json === true, color: useColor(io.stderr, io.env) };
}

/** Colour on a terminal, unless NO_COLOR is set; FORCE_COLOR (not "0") turns it on anywhere (no-color.org, force-color.org). */
export function useColor(out: Writable & { isTTY?: boolean }, env: CliIO['env']): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return out.isTTY === true;
}

/** Writes notices (what the run does, where it goes) unless --quiet. */
export function notices(io: CliIO, mode: OutputMode | undefined): (line: string) => void {
  return (line) => {
    if (!mode?.quiet) io.stderr.write(line);
  };
}

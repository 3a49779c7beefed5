import { resolve } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import { exists } from '../projections/writer.js';
import { parseCommandArgs } from './args.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';

const HELP = `Usage: evalog runs [--dir DIR] [--json]

Lists the runs in a folder of run folders (default ./runs) with their status and event counts.
`;

/** `evalog runs`. */
export const runsCommand: Command = {
  name: 'runs',
  summary: 'list runs and their status',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('runs', args, { dir: { type: 'string' }, json: { type: 'boolean' } }, false);
    if (values.help) return void io.stdout.write(HELP), EXIT.ok;
    void positionals;
    const root = resolve(io.cwd, values.dir ?? 'runs');
    if (!(await exists(root))) throw new InputError(`evalog runs: folder ${root} does not exist (give --dir)`);
    const log = await FileEventLog.open({ root });
    try {
      const runs = await log.runs();
      if (values.json) {
        for (const r of runs) io.stdout.write(`${JSON.stringify(r)}\n`);
      } else if (runs.length === 0) {
        io.stdout.write(`no runs in ${root}\n`);
      } else {
        for (const r of runs) io.stdout.write(`${r.runId.padEnd(32)} ${r.status.padEnd(10)} ${(r.suite ?? '-').padEnd(20)} ${String(r.events).padStart(8)} events  ${r.startedAt ?? ''}\n`);
      }
      return EXIT.ok;
    } finally {
      await log.close();
    }
  },
};

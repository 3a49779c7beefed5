import { FileEventLog } from '../log/file/index.js';
import { rebuildOutputs, writeOutputs } from '../projections/outputs.js';
import { createOutputDir, exists } from '../projections/writer.js';
import { parseCommandArgs } from './args.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import { runFolder } from './run-folder.js';
import { summaryTable } from './table.js';
import { resolve, join } from 'node:path';

const HELP = `Usage: evalog rebuild <run-folder> [--out DIR]

Derives rows.jsonl, summary.json, usage.json and run.json from the run's event log alone.
They are byte-identical to the files the live run wrote. Without --out the files go to
<run-folder>/rebuilt/ (a new folder; an existing one is never overwritten).
`;

/** `evalog rebuild`. */
export const rebuildCommand: Command = {
  name: 'rebuild',
  summary: 'derive all outputs of a run from its log',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('rebuild', args, { out: { type: 'string' } });
    if (values.help) return void io.stdout.write(HELP), EXIT.ok;
    if (positionals.length !== 1) throw new InputError('evalog rebuild: name one run folder (see evalog rebuild --help)');
    const folder = runFolder('rebuild', positionals[0]!, io.cwd);
    if (!(await exists(join(folder.dir, 'log', 'events.evlog')))) throw new InputError(`evalog rebuild: ${folder.dir} has no event log (log/events.evlog)`);
    const out = resolve(io.cwd, values.out ?? join(folder.dir, 'rebuilt'));
    const log = await FileEventLog.open({ root: folder.root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
    try {
      const outputs = await rebuildOutputs(log, folder.runId);
      await createOutputDir(out);
      await writeOutputs(out, outputs);
      io.stdout.write(summaryTable(outputs.summary));
      io.stdout.write(`rebuilt ${outputs.rows.length} rows into ${out}\n`);
      return EXIT.ok;
    } finally {
      await log.close();
    }
  },
};

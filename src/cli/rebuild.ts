import { BlobChecker } from '../log/index.js';
import { outputFileNames } from '../projections/outputs.js';
import { streamOutputs } from '../projections/stream/index.js';
import { createOutputDir, exists } from '../projections/writer.js';
import { loadAllPlugins, outputHooksOfRun, startOfRun } from '../app/index.js';
import { heapForWriting } from './heap.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';
import { resolve, join } from 'node:path';

const HELP = `Usage: evalog rebuild <run> [--out DIR] [--nats URL]

Derives rows.jsonl, summary.json, usage.json and run.json from the run's event log alone (a suite
with its own published files, such as a study's step runs, gets those instead). They are
byte-identical to the files the live run wrote. <run> is a run folder, or a run id with --nats.
Without --out the files go to <run-folder>/rebuilt/ (embedded) or runs/<run-id> (NATS): always a
new folder; an existing one is never overwritten. A run of a suite file needs no suite code
unless the suite has its own report: then the same file (same sha256).
${NATS_HELP}
`;

/** `evalog rebuild`. */
export const rebuildCommand: Command = {
  name: 'rebuild',
  summary: 'derive all outputs of a run from its log',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('rebuild', args, { out: { type: 'string' }, ...natsOption });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog rebuild: name one run folder (see evalog rebuild --help)');
    // A recorded run may be of any suite: every plugin is loaded before the registry is asked.
    await loadAllPlugins();
    const { runId, dir, log, kind } = await openRunTarget('rebuild', positionals[0]!, { nats: values.nats }, io);
    const out = resolve(io.cwd, values.out ?? (kind === 'nats' ? dir : join(dir, 'rebuilt')));
    if (await exists(out)) throw new InputError(`evalog rebuild: output folder ${out} exists already; choose a new --out`);
    try {
      // Outputs come from the events alone, but a log whose blobs are gone or altered is damaged.
      const blobs = new BlobChecker(log.blobs(runId));
      // Only a suite file that shapes its outputs (its own report) is loaded, and then it must be unchanged.
      const hooksOf = await outputHooksOfRun(await startOfRun(log, runId), io.cwd);
      // Streamed: rows and calls go to sorted runs on disk as jobs end, so memory stays flat in the run's size.
      const outputs = await streamOutputs(runId, () => blobs.noting(log.read(runId)), hooksOf, log.blobs(runId));
      try {
        await blobs.verify();
        // A suite's own files are derived here, so one that cannot be (an unfinished run) is refused before the folder is made.
        const own = outputs.own;
        await createOutputDir(out).catch((e: NodeJS.ErrnoException) => {
          if (!['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOENT'].includes(e.code ?? '')) throw e;
          throw new InputError(`evalog rebuild: cannot create the output folder ${out} (${e.code}); choose another with --out`, { cause: e });
        });
        heapForWriting();
        const written = await outputs.write(out);
        io.stdout.write(written.table());
        io.stdout.write(own ? `rebuilt ${outputFileNames(written).join(', ')} into ${out}\n` : `rebuilt ${written.rows} rows into ${out}\n`);
        return EXIT.ok;
      } finally {
        outputs.dispose();
      }
    } finally {
      await log.close();
    }
  },
};

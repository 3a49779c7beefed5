import { resolve } from 'node:path';
import { exists } from '../projections/writer.js';
import { canonicalJson } from '../core/canonical.js';
import { compressFrame } from '../usage-input/zstd.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';
import { exportRows, ROWS_HELP } from './export-rows.js';
import { writeNewFile } from './new-file.js';

const HELP = `Usage: evalog export <run> [--out FILE.jsonl | FILE.jsonl.zst] [--nats URL]
       evalog export <run> --rows [--out FILE.jsonl | FILE.csv] [--nats URL]

Writes the run's stored events as JSON Lines: one canonical JSON event (sorted keys, with its
log position "seq") per line, in log order. A --out name ending in .zst is compressed with
Zstandard. Without --out the (uncompressed) lines go to stdout. An existing --out file is never
overwritten; the file appears whole or not at all. <run> is a run folder, or a run id with --nats.
\`evalog usage\` reads the export and gives the same report as the run's usage.json.
${ROWS_HELP}
${NATS_HELP}
`;

/** `evalog export`. */
export const exportCommand: Command = {
  name: 'export',
  summary: "write a run's stored events as JSONL (.jsonl, or zstd .jsonl.zst), or its rows (--rows: .jsonl or .csv)",
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('export', args, { out: { type: 'string' }, rows: { type: 'boolean' }, ...natsOption });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog export: name one run folder, or one run id with --nats (see evalog export --help)');
    if (values.rows) return exportRows(positionals[0]!, values, io);
    let out: string | null = null;
    if (values.out !== undefined) {
      out = resolve(io.cwd, values.out);
      if (!/\.jsonl(\.zst)?$/.test(out)) throw new InputError(`evalog export: --out must name a .jsonl or .jsonl.zst file, got ${JSON.stringify(values.out)}`);
      if (await exists(out)) throw new InputError(`evalog export: ${out} exists already; choose a new --out (evalog never overwrites an export)`);
    }
    const { runId, log } = await openRunTarget('export', positionals[0]!, { nats: values.nats }, io);
    try {
      const lines: string[] = [];
      for await (const e of log.read(runId)) lines.push(`${canonicalJson(e)}\n`);
      if (lines.length === 0) throw new InputError(`evalog export: run ${runId} has no events in the log`);
      const text = lines.join('');
      if (out === null) {
        io.stdout.write(text);
        return EXIT.ok;
      }
      const bytes = out.endsWith('.zst') ? await compressFrame(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
      await writeNewFile(out, bytes);
      io.stdout.write(`exported ${lines.length} events of run ${runId} to ${out}\n`);
      return EXIT.ok;
    } finally {
      await log.close();
    }
  },
};

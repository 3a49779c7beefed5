// `evalog export <run> --rows`: the run's rows (as rows.jsonl holds them, derived from the log) as
// JSON Lines, or as a CSV table for a spreadsheet.
import { resolve } from 'node:path';
import { BlobChecker } from '../log/index.js';
import { deriveOutputs, jsonLines, rowsCsv } from '../projections/index.js';
import { exists } from '../projections/writer.js';
import { loadAllPlugins, outputHooksOfRun, startOfRun } from '../app/index.js';
import { EXIT, InputError, type CliIO } from './io.js';
import { openRunTarget } from './log-target.js';
import { writeNewFile } from './new-file.js';

/** Help lines of `--rows` (in `evalog export --help`). */
export const ROWS_HELP = `With --rows, writes the run's rows instead (one a job, as rows.jsonl holds them, derived from
the log): --out FILE.jsonl as JSON Lines, --out FILE.csv as a table with a header row, nested
values flattened to dotted column names (usage.total.input_tokens), columns sorted, a list as
JSON in one cell, null as an empty cell. Without --out the JSON Lines go to stdout.`;

/** Runs `evalog export <run> --rows [--out FILE.jsonl|FILE.csv]`. */
export async function exportRows(run: string, values: { out?: string; nats?: string }, io: CliIO): Promise<number> {
  let out: string | null = null;
  if (values.out !== undefined) {
    out = resolve(io.cwd, values.out);
    if (!/\.(jsonl|csv)$/i.test(out)) throw new InputError(`evalog export: --rows --out must name a .jsonl or .csv file, got ${JSON.stringify(values.out)}`);
    if (await exists(out)) throw new InputError(`evalog export: ${out} exists already; choose a new --out (evalog never overwrites an export)`);
  }
  // A recorded run may be of any suite: every plugin is loaded before the registry is asked.
  await loadAllPlugins();
  const { runId, log } = await openRunTarget('export', run, { nats: values.nats }, io);
  try {
    // The rows come from the events alone, as `evalog rebuild` derives them; a log whose blobs are gone or altered is damaged.
    const blobs = new BlobChecker(log.blobs(runId));
    const hooksOf = await outputHooksOfRun(await startOfRun(log, runId), io.cwd);
    const { rows } = await deriveOutputs(runId, blobs.noting(log.read(runId)), hooksOf, log.blobs(runId));
    await blobs.verify();
    const csv = out !== null && /\.csv$/i.test(out);
    const text = csv ? rowsCsv(rows) : jsonLines(rows);
    if (out === null) {
      io.stdout.write(text);
      return EXIT.ok;
    }
    await writeNewFile(out, text);
    io.stdout.write(`exported ${rows.length} rows of run ${runId} to ${out}${csv ? ' (CSV)' : ''}\n`);
    return EXIT.ok;
  } finally {
    await log.close();
  }
}

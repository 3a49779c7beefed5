import { jsonDocument } from '../projections/writer.js';
import type { CliIO } from './io.js';
import type { OutputMode } from './output-flags.js';

/** What a finished run prints: its table (or, with --json, summary.json's content) and where its files went. */
export function printOutcome(io: CliIO, outputs: { summary: unknown; table(): string }, wrote: string, mode: OutputMode | undefined): void {
  if (mode?.json) {
    // stdout holds the JSON document only, so it pipes into jq as is.
    io.stdout.write(jsonDocument(outputs.summary));
    if (!mode.quiet) io.stderr.write(`evalog: ${wrote}\n`);
    return;
  }
  io.stdout.write(outputs.table());
  if (!mode?.quiet) io.stdout.write(`${wrote}\n`);
}

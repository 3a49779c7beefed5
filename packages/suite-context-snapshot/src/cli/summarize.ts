// `evalog summarize <rows.jsonl>`: the context-snapshot summary recomputed from a rows file, offline
// (a command of the suite's own, listed by `evalog --help` beside the generic ones).
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { CliIO, Command } from 'evalog';
import { EXIT, InputError, jsonDocument, parseCommandArgs } from 'evalog';
import { z } from 'zod';
import { summarizeRows } from '../report.js';

const HELP = `Usage: evalog summarize <rows.jsonl>

Recomputes a context-snapshot summary (per arm: n, artifact_correct, clean_success,
observed_total_tokens, usage_complete, mean_total_tokens, mean_seconds, median_seconds, requests)
from a rows file, offline, and prints it as JSON. Reads published rows and evalog's own alike.
`;

const RowShape = z.object({
  arm: z.string(),
  artifact_correct: z.boolean(),
  clean_success: z.boolean(),
  seconds: z.number().nullable(),
  usage: z.object({ total_tokens: z.number().int().nonnegative(), requests: z.number().int().nonnegative(), complete: z.boolean() }),
});

/** A row with none of the fields only context-snapshot rows have. */
function notContextSnapshotRow(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return true;
  return !('artifact_correct' in value) && !('clean_success' in value);
}

/** `evalog summarize`. */
export const summarizeCommand: Command = {
  name: 'summarize',
  summary: 'recompute a context-snapshot summary from rows.jsonl',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('summarize', args, {});
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog summarize: name one rows.jsonl file');
    const file = resolve(io.cwd, positionals[0]!);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      throw new InputError(`evalog summarize: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    const rows = text.split('\n').flatMap((line, i) => {
      if (line.trim() === '') return [];
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new InputError(`evalog summarize: ${file} line ${i + 1} is not JSON`);
      }
      // Rows of another suite (or a dataset) fail on their first line: named as such, not as a field.
      if (notContextSnapshotRow(value))
        throw new InputError(
          `evalog summarize: ${file} is not context-snapshot rows: line ${i + 1} has neither artifact_correct nor clean_success (summarize reads a context-snapshot run's rows.jsonl, or the published ones)`,
        );
      const parsed = RowShape.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new InputError(`evalog summarize: ${file} line ${i + 1}: field ${issue.path.join('.')}: ${issue.message}`);
      }
      return [parsed.data];
    });
    if (rows.length === 0) throw new InputError(`evalog summarize: ${file} has no rows`);
    io.stdout.write(jsonDocument(summarizeRows(rows)));
    return EXIT.ok;
  },
};

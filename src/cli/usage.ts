import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { jsonDocument } from '../projections/writer.js';
import { readUsageInputs, UsageInputError } from '../usage-input/index.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';

const HELP = `Usage: evalog usage [--input FILE]... [FILE]...

Aggregates model-call usage offline from the files named, and only those (nothing is scanned):
  - evalog exports (evalog export): .jsonl or .jsonl.zst
  - DeepSeek Harness session logs, format version 3: .jsonl or multi-frame zstd .jsonl.zstd
The format of each file is detected from its first line. Prints {files, report} as JSON.

Every persisted model attempt is one call with an attribution (main, query, child, unknown) and an
outcome (success, failure, aborted, unknown). For each usage field the report gives the sum of the
known values (null when none is known) with the known- and unknown-call counts: missing usage is
unknown, never zero, and totalTokens is never derived from other fields. Billing is unknown unless
a provider reported it. The same call read twice (same source and seq) counts once; differing
copies of one call become unknown and are listed in diagnostics.conflictingCallIds.

Session logs hold no query calls, and a turn that failed before an attempt was written has no
call: neither is invented. A session is attributed child when its header says origin "subagent"
with a parentSession; its inherited prefix is skipped. Compaction calls are attributed unknown.
A file that cannot be read exits with code 2, naming the file and line.
`;

/** `evalog usage`. */
export const usageCommand: Command = {
  name: 'usage',
  summary: 'aggregate call usage from evalog exports and DeepSeek Harness session logs',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const parsed = parseUsageArgs(args);
    if (parsed.values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    // Files in command-line order, whether given with --input or as positionals.
    const files: string[] = [];
    for (const t of parsed.tokens) {
      let value: string | undefined;
      if (t.kind === 'option' && t.name === 'input') value = t.value;
      else if (t.kind === 'positional') value = t.value;
      else continue;
      if (value === undefined || value.trim() === '') throw new InputError('evalog usage: --input requires a non-empty path');
      files.push(resolve(io.cwd, value));
    }
    if (files.length === 0) throw new InputError('evalog usage: name at least one file (see evalog usage --help)');
    try {
      const { files: read, report } = await readUsageInputs(files);
      io.stdout.write(jsonDocument({ files: read, report }));
      return EXIT.ok;
    } catch (err) {
      if (err instanceof UsageInputError) throw new InputError(`evalog usage: ${err.message}`, { cause: err });
      throw err;
    }
  },
};

function parseUsageArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { help: { type: 'boolean', short: 'h' }, input: { type: 'string', multiple: true } },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (err) {
    throw new InputError(`evalog usage: ${(err as Error).message} (see evalog usage --help)`, { cause: err });
  }
}

// `evalog memory-eviction stats <qa.rows.jsonl> --out DIR`: recomputes qa.summary.json and
// qa.stats.json from graded rows, offline (published deer-flow rows and evalog's own alike).
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { BootstrapOptions, CliIO } from 'evalog';
import {
  createOutputDir,
  EXIT,
  exists,
  InputError,
  intFlag,
  jsonDocument,
  OutputExistsError,
  PUBLISHED_BOOTSTRAP,
  parseCommandArgs,
  StatsError,
  writeAtomic,
} from 'evalog';
import { z } from 'zod';
import { QA_SUITES, type QaRow, QaRowSchema, QaRowsError, type QaStats, qaStatsFromRows } from '../qa-stats.js';

const COMMAND = 'memory-eviction stats';

export const STATS_HELP = `Usage: evalog memory-eviction stats <qa.rows.jsonl> --out DIR [options]

Recomputes qa.summary.json (accuracy per source, scenario and policy) and qa.stats.json (exact
McNemar and the seeded paired bootstrap per suite: official, synthetic, overall; confidence first,
hybrid-v1 second) from graded QA rows, offline. Writes both into DIR, which must not exist.

grader_version and the QA capacity come from the rows (they must agree across rows). The
protocol id comes from the rows' protocol_id field if they have one, else from --protocol-id, else
from the qa_run.json next to the rows file (published deer-flow rows carry no protocol_id);
every source given must agree.

Options:
  --out DIR            output folder (required; refused if it exists)
  --protocol-id ID     protocol id when the rows do not carry one
  --seed N             bootstrap seed (default ${PUBLISHED_BOOTSTRAP.seed})
  --iterations N       bootstrap iterations (default ${PUBLISHED_BOOTSTRAP.iterations})
  --alpha X            two-sided level of the interval, 0 < X < 1 (default ${PUBLISHED_BOOTSTRAP.alpha})
`;

const RowWithProtocol = QaRowSchema.extend({ protocol_id: z.string().min(1).optional() });
type RowWithProtocol = z.infer<typeof RowWithProtocol>;

const QaRunShape = z.object({
  protocol_id: z.string().min(1),
  qa: z.object({ capacity: z.number().int().optional(), grader_version: z.string().optional() }).partial().optional(),
});

async function readRows(file: string): Promise<RowWithProtocol[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new InputError(`evalog ${COMMAND}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const rows: RowWithProtocol[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new InputError(`evalog ${COMMAND}: ${file} line ${i + 1} is not JSON`);
    }
    const parsed = RowWithProtocol.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new InputError(`evalog ${COMMAND}: ${file} line ${i + 1}: field ${issue.path.join('.') || '(row)'}: ${issue.message}`);
    }
    rows.push(parsed.data);
  });
  if (rows.length === 0) throw new InputError(`evalog ${COMMAND}: ${file} has no rows`);
  return rows;
}

/** The single value of a field across rows, or an InputError naming the first disagreeing row. */
function agreed<T>(file: string, rows: readonly RowWithProtocol[], field: string, get: (r: RowWithProtocol) => T): T {
  const value = get(rows[0]!);
  const other = rows.find((r) => get(r) !== value);
  if (other !== undefined) {
    throw new InputError(
      `evalog ${COMMAND}: ${file}: rows disagree on ${field} (${JSON.stringify(value)} vs ${JSON.stringify(get(other))} in row ${other.row_id ?? other.case_id})`,
    );
  }
  return value;
}

async function readQaRun(path: string): Promise<z.infer<typeof QaRunShape> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`evalog ${COMMAND}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`evalog ${COMMAND}: ${path} is not JSON`);
  }
  const parsed = QaRunShape.safeParse(value);
  if (!parsed.success) throw new InputError(`evalog ${COMMAND}: ${path}: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

async function protocolIdFor(file: string, rows: readonly RowWithProtocol[], flag: string | undefined): Promise<string> {
  const sources: [string, string][] = [];
  if (rows.some((r) => r.protocol_id !== undefined)) sources.push(['the rows', agreed(file, rows, 'protocol_id', (r) => r.protocol_id)!]);
  if (flag !== undefined) sources.push(['--protocol-id', flag]);
  const runPath = join(dirname(file), 'qa_run.json');
  const run = await readQaRun(runPath);
  if (run) sources.push([runPath, run.protocol_id]);
  if (sources.length === 0) {
    throw new InputError(`evalog ${COMMAND}: ${file}: the rows carry no protocol_id and there is no ${runPath}; pass --protocol-id`);
  }
  const [first, ...rest] = sources;
  for (const [where, id] of rest) {
    if (id !== first![1])
      throw new InputError(`evalog ${COMMAND}: protocol id ${JSON.stringify(first![1])} (${first![0]}) disagrees with ${JSON.stringify(id)} (${where})`);
  }
  if (run?.qa) {
    const rowCapacity = rows[0]!.capacity;
    const rowGrader = rows[0]!.grader_version;
    if (run.qa.capacity !== undefined && run.qa.capacity !== rowCapacity)
      throw new InputError(`evalog ${COMMAND}: ${runPath} has qa.capacity ${run.qa.capacity} but the rows have capacity ${rowCapacity}`);
    if (run.qa.grader_version !== undefined && run.qa.grader_version !== rowGrader)
      throw new InputError(
        `evalog ${COMMAND}: ${runPath} has qa.grader_version ${JSON.stringify(run.qa.grader_version)} but the rows were graded by ${JSON.stringify(rowGrader)}`,
      );
  }
  return first![1];
}

function alphaFlag(value: string | undefined): number {
  if (value === undefined) return PUBLISHED_BOOTSTRAP.alpha;
  const n = Number(value);
  if (value.trim() === '' || !(n > 0 && n < 1))
    throw new InputError(`evalog ${COMMAND}: --alpha must be a number between 0 and 1, got ${JSON.stringify(value)}`);
  return n;
}

/** The printed summary: one line per suite. */
export function statsTable(stats: QaStats): string {
  const head = ['suite', 'cases', stats.policies[0], stats.policies[1], 'b/c', 'McNemar p', 'difference [CI]'];
  const rows = QA_SUITES.map((name) => {
    const s = stats.suites[name];
    const m = s.mcnemar;
    const b = s.bootstrap;
    return [
      name,
      String(s.cases),
      String(m.both_correct + m.only_first_correct),
      String(m.both_correct + m.only_second_correct),
      `${m.only_first_correct}/${m.only_second_correct}`,
      String(m.p_value),
      `${b.mean_difference} [${b.lower}, ${b.upper}]`,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[line(head), ...rows.map(line)].join('\n')}\n`;
}

/** `evalog memory-eviction stats`. Throws InputError (exit 2 in runCli) on bad input; OutputExistsError when --out exists. */
export async function statsCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(COMMAND, args, {
    out: { type: 'string' },
    'protocol-id': { type: 'string' },
    seed: { type: 'string' },
    iterations: { type: 'string' },
    alpha: { type: 'string' },
  });
  if (values.help) {
    io.stdout.write(STATS_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new InputError(`evalog ${COMMAND}: name one qa.rows.jsonl file (see evalog ${COMMAND} --help)`);
  if (values.out === undefined || values.out === '') throw new InputError(`evalog ${COMMAND}: --out DIR is required`);
  const bootstrap: BootstrapOptions = {
    seed: intFlag(COMMAND, 'seed', values.seed, PUBLISHED_BOOTSTRAP.seed, -Number.MAX_SAFE_INTEGER),
    iterations: intFlag(COMMAND, 'iterations', values.iterations, PUBLISHED_BOOTSTRAP.iterations, 1),
    alpha: alphaFlag(values.alpha),
  };
  const file = resolve(io.cwd, positionals[0]!);
  const out = resolve(io.cwd, values.out);

  if (await exists(out)) throw new OutputExistsError(out); // fail before reading; createOutputDir re-checks atomically
  const rows = await readRows(file);
  const graderVersion = agreed(file, rows, 'grader_version', (r) => r.grader_version);
  const qaCapacity = agreed(file, rows, 'capacity', (r) => r.capacity);
  const protocolId = await protocolIdFor(file, rows, values['protocol-id']);

  let result: ReturnType<typeof qaStatsFromRows>;
  try {
    result = qaStatsFromRows(rows as QaRow[], { protocolId, graderVersion, qaCapacity, bootstrap });
  } catch (err) {
    if (err instanceof QaRowsError || err instanceof StatsError) throw new InputError(`evalog ${COMMAND}: ${file}: ${err.message}`, { cause: err });
    throw err;
  }

  await createOutputDir(out);
  await writeAtomic(join(out, 'qa.summary.json'), jsonDocument(result.summary));
  await writeAtomic(join(out, 'qa.stats.json'), jsonDocument(result.stats));
  io.stdout.write(`protocol ${protocolId}, grader ${graderVersion}, capacity ${qaCapacity}, ${rows.length} rows\n`);
  io.stdout.write(statsTable(result.stats));
  io.stdout.write(`wrote ${join(out, 'qa.summary.json')} and ${join(out, 'qa.stats.json')}\n`);
  return EXIT.ok;
}

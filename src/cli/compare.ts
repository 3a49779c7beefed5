// `evalog compare <run> <run> [<run>…]`: pairs the jobs of runs (or of arms of runs) by case and
// repetition and says, per pair of sides, whether one passes more than the other beyond noise.
// Read-only: the rows are derived from each log as `evalog rebuild` does, and nothing is written.
import { loadAllPlugins, outputHooksOfRun, startOfRun } from '../app/index.js';
import { canonicalJson } from '../core/canonical.js';
import { ALL_PAIRS_MAX_ARMS, deriveOutputs } from '../projections/index.js';
import { compareRuns, type CompareRun } from '../projections/compare/index.js';
import { PUBLISHED_BOOTSTRAP } from '../stats/index.js';
import { compareTable } from './compare-table.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';

const HELP = `Usage: evalog compare <run> <run> [<run>…] [--arm A] [--json] [--force] [--seed N] [--nats URL]

Pairs the jobs of two or more runs by case and repetition and compares them, per pair of sides:
jobs paired (graded on both sides; failed or unfinished jobs are unpaired and counted), passed on
each side, the discordant pairs (only one side passed), the exact McNemar p, a seeded paired
bootstrap of the pass-rate difference with its 95% CI, the mean tokens and seconds per paired job
on each side and their difference (pairs whose usage is unknown are counted beside, never as 0),
and the cases that flipped. Up to ${ALL_PAIRS_MAX_ARMS} sides every pair is compared, past it each against the first.

A side is a run; a run with several arms gives one side per arm (<run-id>:<arm>), and --arm A
takes only arm A of each run. Runs of different suites or protocols (the content hashes their
run.json records: a dataset's case file and grader, a protocol folder's files, the bundled
manifests of the suite) are refused, naming the difference, unless --force. <run> is a run
folder, or a run id with --nats. Nothing is written.

Options:
  --arm A               compare arm A of each run
  --json                print the comparison as canonical JSON (sorted keys, exact figures)
  --force               compare runs of different suites or protocols (the differences are listed)
  --seed N              bootstrap seed (default ${PUBLISHED_BOOTSTRAP.seed}); ${PUBLISHED_BOOTSTRAP.iterations} resamples, alpha ${PUBLISHED_BOOTSTRAP.alpha}
${NATS_HELP}
`;

/** `evalog compare`. */
export const compareCommand: Command = {
  name: 'compare',
  summary: 'compare runs (or arms of runs) paired by case: McNemar p, bootstrap CI, token and time deltas, flipped cases',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('compare', args, {
      arm: { type: 'string' },
      json: { type: 'boolean' },
      force: { type: 'boolean' },
      seed: { type: 'string' },
      ...natsOption,
    });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length < 2) throw new InputError('evalog compare: name two or more runs (run folders, or run ids with --nats; see evalog compare --help)');
    if (values.arm !== undefined && values.arm.trim() === '') throw new InputError('evalog compare: --arm must name an arm');
    const seed = intFlag('compare', 'seed', values.seed, PUBLISHED_BOOTSTRAP.seed, 0);
    // The runs may be of any suites: every plugin is loaded before the registry is asked.
    await loadAllPlugins();
    const runs: CompareRun[] = [];
    for (const run of positionals) runs.push(await readRun(run, values, io));
    const comparison = compareRuns(runs, { arm: values.arm, force: values.force === true, bootstrap: { ...PUBLISHED_BOOTSTRAP, seed } });
    io.stdout.write(values.json ? `${canonicalJson(comparison, 2)}\n` : compareTable(comparison));
    return EXIT.ok;
  },
};

// The rows and run.json of one run, derived from its log (opened read-only) as `evalog rebuild` does.
async function readRun(run: string, values: { nats?: string }, io: CliIO): Promise<CompareRun> {
  const { runId, log } = await openRunTarget('compare', run, { nats: values.nats }, io, true, true);
  try {
    const hooksOf = await outputHooksOfRun(await startOfRun(log, runId), io.cwd);
    const outputs = await deriveOutputs(runId, log.read(runId), hooksOf, log.blobs(runId));
    // A suite whose rows have their own shape (arms of a study's own) says how they pair.
    const armJob = hooksOf(outputs.run.suite)?.report?.armJob;
    return { runId, rows: outputs.rows, run: outputs.run, ...(armJob ? { armJob } : {}) };
  } finally {
    await log.close();
  }
}

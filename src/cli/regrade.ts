import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import { createOutputDir, exists, OutputExistsError, writeAtomic } from '../projections/writer.js';
import { outputFileNames, rebuildOutputs, writeOutputs } from '../projections/outputs.js';
import { executeRun } from '../harness/orchestration/launch.js';
import { loadRecording } from '../harness/orchestration/recording.js';
import { logHash, regradePlan, sourceCaller, SourceMismatchError } from '../harness/orchestration/regrade/index.js';
import {
  ConfigSchemaError,
  loadAllPlugins,
  outputHooksOf,
  pluginVersions,
  recordedSuiteFile,
  type ConfiguredSuite,
  type DefinedSuite,
  resolveSuite,
  UnknownSuiteNameError,
  withSuiteFile,
} from '../app/index.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { openRunTarget } from './log-target.js';
import { runFolder } from './run-folder.js';
import { LOCAL_ONLY } from './run.js';

const HELP = `Usage: evalog regrade <run> --out DIR [--grader NAME]

Grades a finished run again as a new run: the same suite, config and plan (job ids, seeds), its
model answers taken from the source run's log, so no model is called. Only the grading differs:
the suite's current grader code, or --grader NAME for a suite whose config names one (dataset:
exact, contains, regex[:FLAGS], json-field[:PATH], deterministic-overlap-v1; model with the
source's rubric). Each answer is recorded as a call with outcome cached; run.json names the source
(provenance.regrade: sourceRunId, and sourceLogSha256, the sha256 of \`evalog export <run>\`'s output).
A request the source did not send (a changed prompt or tool) stops the regrade with exit 2, naming
the job; nothing is written then. A judge the source did not call cannot be used.

Options:
  --out DIR             the new run folder (must not exist); its name is the run id
  --grader NAME         grader of the cases that name none (the config's "grader")
`;

/** `evalog regrade`. */
export const regradeCommand: Command = {
  name: 'regrade',
  summary: "grade a finished run's answers again as a new run, calling no model",
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('regrade', args, { out: { type: 'string' }, grader: { type: 'string' } });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog regrade: name one run folder (see evalog regrade --help)');
    if (values.out === undefined) throw new InputError('evalog regrade: --out DIR is required (the new run folder)');
    const folder = runFolder('regrade', values.out, io.cwd);
    if (await exists(folder.dir)) throw new OutputExistsError(folder.dir);
    // A recorded run may be of any suite: every plugin is loaded before the registry is asked.
    await loadAllPlugins();
    const source = await openRunTarget('regrade', positionals[0]!, {}, io, true, true);
    try {
      const rec = await loadRecording(source.log, source.runId);
      const file = recordedSuiteFile(rec.started);
      const resolved = await resolveSuite(file?.path ?? rec.started.suite, io.cwd).catch((err: unknown) => {
        throw err instanceof UnknownSuiteNameError ? new InputError(`evalog regrade: ${err.message}`, { cause: err }) : err;
      });
      const config = withGrader(rec.started.config, values.grader, rec.started.suite);
      const prepared = await configured(resolved.suite, config).prepare();
      const from = { runId: source.runId, logSha256: await logHash(source.log, source.runId) };
      const started = withSuiteFile(regradePlan(rec, prepared, from, pluginVersions()), resolved.file);
      return await intoNewFolder(folder, io, async (stage, log) => {
        io.stderr.write(`evalog: regrading run ${from.runId} (log sha256 ${from.logSha256}) into ${folder.dir}: ${started.jobs.length} jobs, no model calls\n`);
        const out = await executeRun({
          suite: prepared,
          log,
          runId: folder.runId,
          started,
          endpoint: { scripted: true },
          caller: sourceCaller(rec),
          signal: io.signal,
        }).catch((err: unknown) => {
          const mismatch = firstMismatch(err);
          throw mismatch ? new InputError(`evalog regrade: ${mismatch.message}`, { cause: err }) : err;
        });
        if (out.status === 'interrupted') return null;
        const outputs = await rebuildOutputs(log, folder.runId, outputHooksOf(resolved.suite));
        await writeOutputs(stage, outputs);
        return () => {
          io.stdout.write(outputs.table());
          io.stdout.write(`wrote ${outputFileNames(outputs).join(', ')} to ${folder.dir}\n`);
        };
      });
    } finally {
      await source.log.close();
    }
  },
};

/** The suite configured with the regrade's config; one that does not validate is bad input naming the field. */
function configured(suite: DefinedSuite, config: Record<string, unknown>): ConfiguredSuite {
  try {
    return suite.configure(config);
  } catch (err) {
    if (!(err instanceof ConfigSchemaError)) throw err;
    const issue = err.issues[0]!;
    throw new InputError(`evalog regrade: field ${issue.path.join('.') || '(root)'}: ${issue.message}`, { cause: err });
  }
}

/** The source's config with `--grader` as its grader; a suite whose config names none takes no --grader. */
function withGrader(config: Record<string, unknown>, grader: string | undefined, suite: string): Record<string, unknown> {
  if (grader === undefined) return config;
  if (!('grader' in config)) throw new InputError(`evalog regrade: --grader: suite ${suite} has no grader to choose (its config has no "grader" field)`);
  if (grader.startsWith('model:'))
    throw new InputError('evalog regrade: --grader: a rubric file cannot be given here; --grader model uses the rubric the source run pinned');
  return { ...config, grader };
}

/**
 * Runs `work` in a staging folder beside the new run folder (same parent, so the final rename is
 * atomic) and renames it into place only when `work` finished: an error or an interrupt leaves
 * nothing behind. `work` returns what to print once the folder is in place, or null (interrupted).
 */
async function intoNewFolder(
  folder: { dir: string; root: string; runId: string },
  io: CliIO,
  work: (stage: string, log: FileEventLog) => Promise<(() => void) | null>,
): Promise<number> {
  const stageRoot = join(folder.root, `.evalog-regrade-${folder.runId}-${randomBytes(4).toString('hex')}`);
  const stage = join(stageRoot, folder.runId);
  await mkdir(folder.root, { recursive: true });
  await mkdir(stageRoot);
  try {
    await createOutputDir(stage);
    await writeAtomic(join(stage, '.gitignore'), LOCAL_ONLY);
    const log = await FileEventLog.open({ root: stageRoot, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
    let done: (() => void) | null;
    try {
      done = await work(stage, log);
    } finally {
      await log.close();
    }
    if (!done) {
      io.stderr.write('evalog: regrade interrupted; nothing was written (run it again)\n');
      return EXIT.interrupted;
    }
    if (await exists(folder.dir)) throw new OutputExistsError(folder.dir);
    await rename(stage, folder.dir);
    done();
    return EXIT.ok;
  } finally {
    await rm(stageRoot, { recursive: true, force: true });
  }
}

/** The first mismatch (by job id) among a failed run's errors, wherever it is wrapped. */
function firstMismatch(err: unknown): SourceMismatchError | null {
  const found: SourceMismatchError[] = [];
  const walk = (e: unknown, depth: number) => {
    if (depth > 5 || e === null || typeof e !== 'object') return;
    if (e instanceof SourceMismatchError) found.push(e);
    for (const inner of (e as { errors?: unknown[] }).errors ?? []) walk(inner, depth + 1);
    walk((e as { cause?: unknown }).cause, depth + 1);
  };
  walk(err, 0);
  found.sort((a, b) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0));
  return found[0] ?? null;
}

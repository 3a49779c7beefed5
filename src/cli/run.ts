import { join, resolve } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import { followDuring, LogLockedError, type EventLog } from '../log/index.js';
import { createOutputDir, writeAtomic } from '../projections/writer.js';
import { systemClock } from '../core/clock.js';
import { resolveConfig } from '../harness/orchestration/config.js';
import { executeRun, planRun, withAgentProvenance } from '../harness/orchestration/launch.js';
import { parseArgs } from 'node:util';
import {
  builtInNames,
  ensureSuite,
  isSuiteFilePath,
  loadAllPlugins,
  outputHooksOf,
  pluginVersions,
  resolveSuite,
  suiteCli,
  UnknownSuiteNameError,
  withSuiteFile,
} from '../app/index.js';
import { joinNegativeValues } from '../harness/suite/argv.js';
import { intFlag, parseCommandArgs } from './args.js';
import { ENDPOINT_HELP, endpointOptions, resolveEndpoint } from './endpoint.js';
import { PassThroughCacheError } from '../harness/endpoint/endpoint.js';
import { preflightEndpoint } from './preflight.js';
import { RUN_CHECK_HELP, RUN_CHECK_OPTIONS, runChecks, withFailUnder } from './run-checks.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import { ProgressReporter } from './progress.js';
import { finishRun } from './finish-run.js';
import { AGENT_HELP, AGENT_OPTION, agentOverrides } from './agent-flags.js';
import { defaultRunPath, runFolder } from './run-folder.js';
import { connectNats, NATS_HELP, natsOption, natsUrl } from './log-target.js';
import { applySuiteFlags, suiteRunHelp, suiteRunOptions } from './suite-flags.js';
import { CASE_HELP, CASE_OPTIONS, caseOverrides } from './case-flags.js';
import { SAMPLING_HELP, SAMPLING_OPTIONS, samplingOverrides } from './sampling-flags.js';
import { startScaleOut, WORKERS_HELP, workersMode, workersOptions } from './scale-out.js';
import { CACHE_HELP, cacheOption, takeCacheFlags, withCacheProvenance } from './cache-flags.js';
import { notices, OUTPUT_HELP, OUTPUT_OPTIONS, outputMode } from './output-flags.js';

// The suites' own flags are those of the suites loaded when the text is made (`run --help` loads every plugin first).
const help = () => `Usage: evalog run <suite | suite file> [options]

Runs a suite (paired arms × cases × repetitions) and writes rows.jsonl, summary.json,
usage.json and run.json, with the event log, into a new run folder.

Suites: ${builtInNames().join(', ')}
A suite file (.ts, .mts, .js, .mjs) is a module whose default export is a suite; TypeScript
needs no build step. run.json records its path (relative to this folder) and sha256; resume,
replay and workers refuse the run once the file changed. A \`player\` it exports plays the
suite on the built-in scripted model.

Options:
  --out DIR             new run folder (default runs/<suite>-<time>); its name is the run id
  --config PATH         suite config (.yaml/.yml as YAML, else JSON); flags below override it
  --repetitions N       repetitions of every case × arm
  --concurrency N       jobs at once
  --seed N              run seed (job seeds derive from it)
${CASE_HELP}
${SAMPLING_HELP}
${CACHE_HELP}
${AGENT_HELP}
${suiteRunHelp()}
${NATS_HELP}
${WORKERS_HELP}
${ENDPOINT_HELP}
${OUTPUT_HELP}
${RUN_CHECK_HELP}
`;

/** Files of a run folder that stay local (the log holds full requests and responses). */
export const LOCAL_ONLY = '# Local-only data: full requests, responses and artifacts.\nlog/\nartifacts/\n';

/** The flags of `evalog run` that are not a suite's own. */
const RUN_OPTIONS = {
  out: { type: 'string' },
  config: { type: 'string' },
  repetitions: { type: 'string' },
  concurrency: { type: 'string' },
  seed: { type: 'string' },
  ...CASE_OPTIONS,
  ...SAMPLING_OPTIONS,
  ...AGENT_OPTION,
  ...endpointOptions,
  ...natsOption,
  ...workersOptions,
  ...OUTPUT_OPTIONS,
  ...RUN_CHECK_OPTIONS,
} as const;

/** run's flags with those of the suites loaded now. */
const runOptions = () => ({ ...RUN_OPTIONS, ...suiteRunOptions() });
const parseRun = (args: string[]) => parseCommandArgs('run', args, runOptions());

/**
 * Parses run's flags loading no plugin but the named suite's: its name (the first positional, as
 * far as the flags known so far tell) has its plugin loaded, then the flags of the suites loaded
 * are parsed. A flag none of them knows loads every plugin and is parsed again, so another suite's
 * flag is refused naming that suite (applySuiteFlags) and a misspelt one is offered the nearest of all.
 */
async function parseRunArgs(args: string[]): Promise<ReturnType<typeof parseRun>> {
  const known = runOptions();
  const named = parseArgs({ args: joinNegativeValues(args, known), options: known, strict: false, allowPositionals: true }).positionals[0];
  // A plugin that cannot be loaded is named by resolveSuite, after --help and the arguments' checks.
  if (named !== undefined && !isSuiteFilePath(named)) await ensureSuite(named).catch(() => undefined);
  try {
    return parseRun(args);
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw err;
    // Every plugin that loads is loaded (one that does not cannot own the flag here).
    await loadAllPlugins().catch(() => undefined);
    return parseRun(args);
  }
}

/** `evalog run`. */
export const runCommand: Command = {
  name: 'run',
  summary: 'run a suite into a new run folder',
  get help() {
    return help();
  },
  async run(argv: string[], io: CliIO): Promise<number> {
    const { args, cache } = takeCacheFlags('run', argv, io);
    const { values, positionals } = await parseRunArgs(args);
    if (values.help) {
      // Every suite's own flags are listed, as far as their plugins load.
      await loadAllPlugins().catch(() => undefined);
      io.stdout.write(help());
      return EXIT.ok;
    }
    const mode = outputMode('run', values, io);
    const say = notices(io, mode);
    const [suiteName, ...extra] = positionals;
    if (!suiteName) throw new InputError(`evalog run: name a suite (${builtInNames().join(', ')}) or a suite file`);
    if (extra.length > 0) throw new InputError(`evalog run: unexpected argument ${JSON.stringify(extra[0])}`);
    const resolved = await resolveSuite(suiteName, io.cwd).catch((err: unknown) => {
      throw err instanceof UnknownSuiteNameError ? new InputError(`evalog run: ${err.message}`, { cause: err }) : err;
    });
    const { suite, players } = resolved;
    const own = applySuiteFlags(suite, values, io.cwd);
    const prepared = await resolveConfig(suite, values.config === undefined ? undefined : resolve(io.cwd, values.config), {
      repetitions: values.repetitions === undefined ? undefined : intFlag('run', 'repetitions', values.repetitions, 1, 1, 1000),
      concurrency: values.concurrency === undefined ? undefined : intFlag('run', 'concurrency', values.concurrency, 1, 1, 256),
      seed: values.seed === undefined ? undefined : intFlag('run', 'seed', values.seed, 0, 0),
      ...caseOverrides(values),
      ...samplingOverrides(values, { name: suite.name, fixedSampling: suiteCli(suite.name).fixedSampling }),
      ...agentOverrides(values.agent, io.cwd),
      ...own.overrides,
    });
    const { config } = prepared;
    const checks = runChecks('run', values);
    const given = resolveEndpoint('run', { ...values, model: own.model }, io.env, suiteCli(suite.name).endpointEnv);
    // Checked before the run folder exists: a dead endpoint or a refused key is exit 2 with nothing written.
    const endpoint = prepared.shape === 'compute' ? given : await preflightEndpoint('run', given);
    const folder = runFolder('run', values.out ?? defaultRunPath(suite.name, systemClock.now()), io.cwd);

    const nats = natsUrl(values, io.env);
    const workers = workersMode('run', values.workers, nats !== null);
    if (cache && workers !== 'inline')
      throw new InputError('evalog run: --cache works in this process only, not with --workers (workers call the model themselves)');
    if (cache && !endpoint.scripted && endpoint.protocols?.length) throw new PassThroughCacheError('run');
    const started = withFailUnder(
      withCacheProvenance(await withAgentProvenance(withSuiteFile(planRun(prepared, endpoint, pluginVersions()), resolved.file), config), cache),
      checks.failUnder,
    );
    // The NATS log is opened first so a run id it already holds is refused before anything is written.
    const natsLog = nats ? await connectNats(nats, io.env) : null;
    let log: EventLog | null = natsLog;
    try {
      if (log && (await log.runs()).some((r) => r.runId === folder.runId)) {
        throw new InputError(`evalog run: run ${folder.runId} exists already in NATS; choose a new --out (its name is the run id)`);
      }
      // Two runs given the same id at once: the one that does not get the run's writer lock stops here.
      if (log)
        await log.claimWriter(folder.runId).catch((err: unknown) => {
          throw err instanceof LogLockedError ? new InputError(`evalog run: ${err.message}`, { cause: err }) : err;
        });
      await createOutputDir(folder.dir);
      await writeAtomic(join(folder.dir, '.gitignore'), LOCAL_ONLY);
      log ??= await FileEventLog.open({ root: folder.root, onWarning: (m) => io.stderr.write(`evalog: warning: ${m}\n`) });
      say(
        endpoint.scripted
          ? 'evalog: no endpoint configured: the built-in scripted model plays (results are labelled scripted)\n'
          : `evalog: calling model ${endpoint.model} at the endpoint from ${endpoint.baseUrlEnv}${endpoint.identifiesAsScripted ? " (it is evalog's scripted model: results are labelled scripted)" : ''}\n`,
      );
      for (const notice of own.notices ?? []) say(`evalog: ${notice}\n`);
      const where = nats ? `NATS JetStream log, outputs in ${folder.dir}` : `embedded log in ${folder.dir}`;
      say(`evalog: run ${folder.runId}: ${started.jobs.length} jobs, concurrency ${config.concurrency}, ${where}\n`);

      const runLog: EventLog = log;
      const progress = new ProgressReporter(io.stderr, systemClock.now, config.provider.maxRetryAfterMs, mode);
      // The lines follow the log from the run's first event; the embedded log's file exists once
      // this process holds the run's writer lock (NATS took it above; executeRun takes it again).
      await runLog.claimWriter(folder.runId);
      const scale = await startScaleOut('run', workers, natsLog, folder.runId, { name: suite.name, players }, endpoint, io, values.lease);
      const out = await followDuring(
        runLog,
        folder.runId,
        (e) => progress.onEvent(e),
        0,
        async () => {
          try {
            return await executeRun({
              suite: prepared,
              log: runLog,
              runId: folder.runId,
              started,
              endpoint,
              players,
              signal: io.signal,
              ...(checks.maxConsecutiveFailures > 0 ? { breaker: { max: checks.maxConsecutiveFailures } } : {}),
              ...(scale.remote ? { remote: scale.remote } : {}),
              ...cacheOption(cache, io),
            });
          } finally {
            await scale.finish();
          }
        },
      );
      progress.finish();
      const how = nats ? `${folder.runId} --nats URL --out ${folder.dir}` : folder.dir;
      return await finishRun(log, folder.runId, folder.dir, out.status, io, `evalog resume ${how}`, outputHooksOf(suite), mode, {
        failUnder: checks.failUnder,
        ...(out.halted ? { halted: out.halted } : {}),
      });
    } finally {
      await log?.close();
    }
  },
};

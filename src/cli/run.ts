import { join, resolve } from 'node:path';
import { outputHooksOf, pluginVersions, resolveSuite, suiteCli, UnknownSuiteNameError, withSuiteFile } from '../app/index.js';
import { systemClock } from '../core/clock.js';
import { PassThroughCacheError } from '../harness/endpoint/endpoint.js';
import { resolveConfig } from '../harness/orchestration/config.js';
import { executeRun, planRun, withAgentProvenance } from '../harness/orchestration/launch.js';
import { FileEventLog } from '../log/file/index.js';
import { followDuring, LogLockedError, type EventLog } from '../log/index.js';
import { createOutputDir, writeAtomic } from '../projections/writer.js';
import { cacheOption, withCacheProvenance } from './cache-flags.js';
import { resolveEndpoint } from './endpoint.js';
import { finishRun } from './finish-run.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import { connectNats } from './log-target.js';
import { notices } from './output-flags.js';
import { preflightEndpoint } from './preflight.js';
import { ProgressReporter } from './progress.js';
import { withFailUnder } from './run-checks.js';
import { defaultRunPath, runFolder } from './run-folder.js';
import { readRunFlags, runHelp, runOverrides } from './run-flags.js';
import { startScaleOut } from './scale-out.js';

// `evalog run`, step by step: read the flags (run-flags.ts), resolve the suite and its config,
// choose the endpoint, plan the jobs, open the log, run the actors while the progress line follows
// the log, then derive the outputs from the log (finish-run.ts). docs/architecture.md, "One run's
// path", follows it further down.

/** Files of a run folder that stay local (the log holds full requests and responses). */
export const LOCAL_ONLY = '# Local-only data: full requests, responses and artifacts.\nlog/\nartifacts/\n';

/** `evalog run`. */
export const runCommand: Command = {
  name: 'run',
  summary: 'run a suite into a new run folder',
  get help() {
    return runHelp();
  },
  async run(argv: string[], io: CliIO): Promise<number> {
    // `--watch` runs the suite again on every save (run-watch.ts), each time through this command.
    if (argv.includes('--watch')) return (await import('./run-watch.js')).watchRun(argv, io, (again) => runCommand.run(again, io));
    const flags = await readRunFlags(argv, io);
    if (flags === 'help') return EXIT.ok;
    const { values, cache, mode, checks, nats, workers } = flags;
    const say = notices(io, mode);
    const resolved = await resolveSuite(flags.suite, io.cwd).catch((err: unknown) => {
      throw err instanceof UnknownSuiteNameError ? new InputError(`evalog run: ${err.message}`, { cause: err }) : err;
    });
    const { suite, players } = resolved;
    const own = runOverrides(suite, values, io.cwd);
    const prepared = await resolveConfig(suite, values.config === undefined ? undefined : resolve(io.cwd, values.config), own.overrides);
    const { config } = prepared;
    const given = resolveEndpoint('run', { ...values, model: own.model }, io.env, suiteCli(suite.name).endpointEnv);
    // A real endpoint is checked before the run folder exists: a dead one or a refused key is exit 2 with nothing written.
    const endpoint = given.scripted || prepared.shape === 'compute' ? given : await preflightEndpoint('run', given);
    const folder = runFolder('run', values.out ?? defaultRunPath(suite.name, systemClock.now()), io.cwd);

    if (cache && !endpoint.scripted && endpoint.protocols?.length) throw new PassThroughCacheError('run');
    const planned = await withAgentProvenance(withSuiteFile(planRun(prepared, endpoint, pluginVersions()), resolved.file), config);
    const cached = cache ? withCacheProvenance(planned, cache) : planned;
    const started = checks.failUnder === null ? cached : withFailUnder(cached, checks.failUnder);
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
      for (const notice of own.notices) say(`evalog: ${notice}\n`);
      const where = nats ? `NATS JetStream log, outputs in ${folder.dir}` : `embedded log in ${folder.dir}`;
      say(`evalog: run ${folder.runId}: ${started.jobs.length} jobs, concurrency ${config.concurrency}, ${where}\n`);

      const runLog: EventLog = log;
      const progress = new ProgressReporter(io.stderr, systemClock.now, config.provider.maxRetryAfterMs, mode);
      // The lines follow the log from the run's first event; the embedded log's file exists once
      // this process holds the run's writer lock (NATS took it above; executeRun takes it again).
      await runLog.claimWriter(folder.runId);
      // Inline (the default, and the only mode without NATS), this process runs every job itself.
      const scale =
        workers === 'inline' ? null : await startScaleOut('run', workers, natsLog, folder.runId, { name: suite.name, players }, endpoint, io, values.lease);
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
              ...(scale?.remote ? { remote: scale.remote } : {}),
              ...(cache ? cacheOption(cache, io) : {}),
            });
          } finally {
            await scale?.finish();
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

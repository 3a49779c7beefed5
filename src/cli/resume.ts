import { access, constants } from 'node:fs/promises';
import { followDuring, LogLockedError, LogNotWritableError, type EventLog } from '../log/index.js';
import { systemClock } from '../core/clock.js';
import { resumeRun, ResumeRefusedError } from '../harness/orchestration/replay-resume.js';
import { loadRecording } from '../harness/orchestration/recording.js';
import { outputHooksOf, suiteCli, suiteOfRun, suiteNamed } from '../app/index.js';
import type { RunBinding } from '../harness/suite/index.js';
import { ENDPOINT_HELP, endpointOptions } from './endpoint.js';
import { resumeEndpoint } from './resume-endpoint.js';
import { notices, OUTPUT_HELP, OUTPUT_OPTIONS, outputMode } from './output-flags.js';
import { preflightEndpoint } from './preflight.js';
import { RUN_CHECK_HELP, RUN_CHECK_OPTIONS, recordedFailUnder, runChecks } from './run-checks.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { NATS_HELP, natsOption, natsUrl, openRunTarget } from './log-target.js';
import { startScaleOut, WORKERS_HELP, workersMode, workersOptions } from './scale-out.js';
import { ProgressReporter } from './progress.js';
import { helpLines, withRegistryBinding } from './binding-help.js';
import { finishRun } from './finish-run.js';
import { CACHE_HELP, cacheOption, recordedCache, takeCacheFlags } from './cache-flags.js';

const help = (binding: RunBinding) => `Usage: evalog resume <run> [--concurrency N] [--nats URL [--out DIR] [--workers MODE]] [endpoint options]

Finishes a run that crashed or was interrupted, in the same folder and log: the recorded part is
replayed (no completed provider call is sent again), then the run goes on live and its outputs
are written. The run goes on against the endpoint and model it started with, read from the same
variables it recorded (e.g. EVALOG_BASE_URL, EVALOG_API_KEY); an endpoint given as a literal
--base-url is not recorded and must be given again. The run id is the one its log recorded, so a
renamed or copied run folder resumes under it.
  --concurrency N       jobs at once for the rest of the run (default: the run's own)
<run> is a run folder, or a run id with --nats (outputs then go to --out, default runs/<run-id>).
${helpLines(binding.help)}A run started with --cache uses its cache again (the folder run.json names, from here) unless
--cache=DIR or --no-cache says otherwise.
${CACHE_HELP}
${NATS_HELP}
${WORKERS_HELP}
${ENDPOINT_HELP}
${OUTPUT_HELP}
${RUN_CHECK_HELP}
--fail-under given to resume replaces the one the run recorded.
`;

/** `evalog resume`, binding recorded runs with `binding` (the registry's: resumeCommand). */
export function resumeCommandFor(binding: RunBinding): Command {
  const HELP = help(binding);
  return {
    name: 'resume',
    summary: 'finish a crashed or interrupted run without repeating completed calls',
    help: HELP,
    async run(argv: string[], io: CliIO): Promise<number> {
      const { args, cache: asked } = takeCacheFlags('resume', argv, io);
      const { values, positionals } = parseCommandArgs('resume', args, {
        ...endpointOptions,
        ...natsOption,
        ...binding.options,
        ...workersOptions,
        out: { type: 'string' },
        concurrency: { type: 'string' },
        ...OUTPUT_OPTIONS,
        ...RUN_CHECK_OPTIONS,
      });
      if (values.help) {
        io.stdout.write(HELP);
        return EXIT.ok;
      }
      if (positionals.length !== 1) throw new InputError('evalog resume: name one run folder (see evalog resume --help)');
      const mode = outputMode('resume', values, io);
      const window = values.concurrency === undefined ? undefined : intFlag('resume', 'concurrency', values.concurrency, 1, 1, 256);
      const checks = runChecks('resume', values);
      const workers = workersMode('resume', values.workers, natsUrl(values, io.env) !== null);
      const { runId, dir, log, kind } = await openRunTarget('resume', positionals[0]!, values, io);
      try {
        // Before anything else: a run another process still writes, or a log that cannot take an
        // append, is refused here, before any model call or queued job.
        await claimRun(log, runId, kind === 'embedded' ? dir : null);
        const rec = await loadRecording(log, runId);
        const cache = asked === undefined ? recordedCache('resume', rec.started, io.cwd) : asked;
        // A suite file that changed or is gone refuses the run here, before any model call.
        const own = await suiteOfRun(rec.started, io.cwd);
        const endpoint = await preflightEndpoint('resume', resumeEndpoint(rec.started.model, values, io.env, suiteCli(rec.started.suite).endpointEnv));
        // The plan stays the same; only how many of its jobs run at once changes (replay ignores it).
        if (window !== undefined && window !== rec.started.concurrency)
          notices(io, mode)(`evalog: run ${runId}: concurrency ${window} for the rest of the run (it started with ${rec.started.concurrency})\n`);
        const progress = new ProgressReporter(
          io.stderr,
          systemClock.now,
          (rec.started.config as { provider?: { maxRetryAfterMs?: number } }).provider?.maxRetryAfterMs,
          mode,
        );
        // Bound first (a suite's inputs outside the log), so missing inputs are refused before any worker starts.
        const suite = binding.bind(values, io)(rec.started.suite) ?? own?.suite;
        const players = own?.players ?? [];
        // Workers still running the run's jobs keep their claims: queue the rest for them rather than
        // resume their jobs here (an inline resume is for a run whose workers are all gone).
        const natsLog = kind === 'nats' ? (log as JetStreamEventLog) : null;
        const scale = await startScaleOut('resume', workers, natsLog, runId, { name: rec.started.suite, players, suite }, endpoint, io, values.lease);
        const resume = async () => {
          try {
            return await resumeRun(log, runId, {
              endpoint,
              players,
              signal: io.signal,
              maxConsecutiveFailures: checks.maxConsecutiveFailures,
              suiteOf: (name) => (name === rec.started.suite ? suite : suiteNamed(name)),
              ...(window !== undefined ? { window } : {}),
              ...(scale.remote ? { remote: scale.remote } : {}),
              ...cacheOption(cache, io),
            });
          } finally {
            await scale.finish();
          }
        };
        // The lines follow the log from the run's first event (what was recorded says so, and prints
        // no Retry-After wait again); a run complete already only has its outputs written.
        const out = rec.completed ? await resume() : await followDuring(log, runId, (e, recorded) => progress.onEvent(e, recorded), rec.lastSeq, resume);
        progress.finish();
        if (out.alreadyComplete) notices(io, mode)(`evalog: run ${runId} was already complete; writing its outputs\n`);
        return await finishRun(log, runId, dir, out.status, io, `evalog resume ${argv.join(' ')}`, suite ? outputHooksOf(suite) : suiteNamed, mode, {
          failUnder: recordedFailUnder(rec.started, checks.failUnder),
          ...(out.halted ? { halted: out.halted } : {}),
        });
      } catch (err) {
        if (err instanceof ResumeRefusedError) throw new InputError(`evalog resume: ${err.message}`, { cause: err });
        throw err;
      } finally {
        await log.close();
      }
    },
  };
}

/** `evalog resume`, with every plugin's binding. */
export const resumeCommand: Command = withRegistryBinding(resumeCommandFor);

/** Takes the run's writer lock and checks the run folder takes outputs; both refusals are bad input (exit 2). `command` names the command in messages. */
export async function claimRun(log: EventLog, runId: string, runFolder: string | null, command = 'resume'): Promise<void> {
  try {
    await log.claimWriter(runId);
    if (runFolder !== null) await access(runFolder, constants.W_OK);
  } catch (err) {
    if (err instanceof LogLockedError || err instanceof LogNotWritableError) throw new InputError(`evalog ${command}: ${err.message}`, { cause: err });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
      throw new InputError(`evalog ${command}: ${runFolder}: the run folder is not writable (${code}); its outputs are written there`, { cause: err });
    }
    throw err;
  }
}

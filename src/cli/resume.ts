import { access, constants } from 'node:fs/promises';
import { followDuring, LogLockedError, LogNotWritableError, type EventLog } from '../log/index.js';
import { systemClock } from '../core/clock.js';
import { resumeRun, ResumeRefusedError } from '../harness/replay-resume.js';
import { callsNoModel, type ModelEndpoint } from '../harness/endpoint.js';
import { loadRecording } from '../harness/recording.js';
import { outputHooksOf, suiteCli, suiteOfRun, suiteNamed } from '../app/index.js';
import { parseCommandArgs } from './args.js';
import { ENDPOINT_HELP, endpointOptions, resolveEndpoint } from './endpoint.js';
import { EXIT, InputError, type CliIO, type Command } from './io.js';
import type { JetStreamEventLog } from '../log/jetstream/index.js';
import { NATS_HELP, natsOption, natsUrl, openRunTarget } from './log-target.js';
import { startScaleOut, WORKERS_HELP, workersMode, workersOptions } from './scale-out.js';
import { protocolOptions, suiteBinder } from './memory-eviction-inputs.js';
import { ProgressReporter } from './progress.js';
import { finishRun } from './finish-run.js';
import { CACHE_HELP, cacheOption, recordedCache, takeCacheFlags } from './cache-flags.js';

const HELP = `Usage: evalog resume <run> [--nats URL [--out DIR] [--workers MODE]] [endpoint options]

Finishes a run that crashed or was interrupted, in the same folder and log: the recorded part is
replayed (no completed provider call is sent again), then the run goes on live and its outputs
are written. A run that used a real endpoint needs the same endpoint and model again.
<run> is a run folder, or a run id with --nats (outputs then go to --out, default runs/<run-id>).
A memory-eviction run also needs its inputs: --dataset PATH [--protocol DIR] [--config PATH].
A run started with --cache uses its cache again (the folder run.json names, from here) unless
--cache=DIR or --no-cache says otherwise.
${CACHE_HELP}
${NATS_HELP}
${WORKERS_HELP}
${ENDPOINT_HELP}
`;

/** `evalog resume`. */
export const resumeCommand: Command = {
  name: 'resume',
  summary: 'finish a crashed or interrupted run without repeating completed calls',
  help: HELP,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { args, cache: asked } = takeCacheFlags('resume', argv, io);
    const { values, positionals } = parseCommandArgs('resume', args, {
      ...endpointOptions,
      ...natsOption,
      ...protocolOptions,
      ...workersOptions,
      out: { type: 'string' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog resume: name one run folder (see evalog resume --help)');
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
      const endpoint = endpointFor(rec.started.model, resolveEndpoint('resume', values, io.env, suiteCli(rec.started.suite).endpointEnv));
      const progress = new ProgressReporter(
        io.stderr,
        systemClock.now,
        (rec.started.config as { provider?: { maxRetryAfterMs?: number } }).provider?.maxRetryAfterMs,
      );
      // Bound first (memory-eviction's dataset), so missing inputs are refused before any worker starts.
      const suite = suiteBinder(values, io)(rec.started.suite) ?? own?.suite;
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
            suiteOf: (name) => (name === rec.started.suite ? suite : suiteNamed(name)),
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
      if (out.alreadyComplete) io.stderr.write(`evalog: run ${runId} was already complete; writing its outputs\n`);
      return await finishRun(log, runId, dir, out.status, io, `evalog resume ${argv.join(' ')}`, suite ? outputHooksOf(suite) : suiteNamed);
    } catch (err) {
      if (err instanceof ResumeRefusedError) throw new InputError(`evalog resume: ${err.message}`, { cause: err });
      throw err;
    } finally {
      await log.close();
    }
  },
};

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

/** The endpoint a recorded run goes on against: the model it started with, scripted or not (`command` names the command in messages). */
export function endpointFor(
  recorded: { name: string; scripted: boolean; baseUrlEnv: string | null; apiKeyEnv: string | null },
  given: ModelEndpoint,
  command = 'resume',
): ModelEndpoint {
  // A run of compute jobs calls no model: whatever endpoint is configured goes unused.
  if (callsNoModel(recorded)) return { scripted: true };
  if (given.scripted) {
    if (recorded.scripted && recorded.baseUrlEnv === null) return given; // built in; a scripted endpoint must be given again
    const how = recorded.baseUrlEnv?.startsWith('--') ? recorded.baseUrlEnv : `--base-url or ${recorded.baseUrlEnv}`;
    throw new InputError(
      `evalog ${command}: this run called model ${recorded.name} at an endpoint given by ${recorded.baseUrlEnv}; give that endpoint again (${how})`,
    );
  }
  if (given.model !== recorded.name)
    throw new InputError(`evalog ${command}: field model: the run used ${JSON.stringify(recorded.name)}, not ${JSON.stringify(given.model)}`);
  return given;
}

import { followDuring } from '../log/index.js';
import { systemClock } from '../core/clock.js';
import { ResumeRefusedError, retryRun } from '../harness/index.js';
import { loadRecording } from '../harness/orchestration/recording.js';
import { outputHooksOf, suiteCli, suiteOfRun, suiteNamed } from '../app/index.js';
import type { RunBinding } from '../harness/suite/index.js';
import { ENDPOINT_HELP, endpointOptions } from './endpoint.js';
import { EXIT, InputError, type Command, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';
import { helpLines, withRegistryBinding } from './binding-help.js';
import { ProgressReporter } from './progress.js';
import { finishRun } from './finish-run.js';
import { claimRun } from './resume.js';
import { resumeEndpoint } from './resume-endpoint.js';
import { preflightEndpoint } from './preflight.js';
import { recordedFailUnder } from './run-checks.js';
import { notices, OUTPUT_HELP, OUTPUT_OPTIONS, outputMode } from './output-flags.js';

const help = (binding: RunBinding) => `Usage: evalog retry <run> [--failed] [--nats URL [--out DIR]] [endpoint options]

Runs again, in the same folder and log, the jobs of a finished run that ended in errors (provider,
agent, crash), or with --failed also the jobs that did not pass. Each runs as a new attempt of the
same job (same seed); the first attempts stay in the log and in usage.json (their cost counts),
and rows.jsonl shows each job's last attempt, with "attempts" when it had more than one. Nothing
recorded is sent again. An interrupted retry is finished with evalog resume.
A run that used a real endpoint needs the same endpoint and model again.
<run> is a run folder, or a run id with --nats (outputs then go to --out, default runs/<run-id>).
${helpLines(binding.help)}  --failed              also retry the jobs that ended but did not pass
${OUTPUT_HELP}
${NATS_HELP}
${ENDPOINT_HELP}
`;

/** `evalog retry`, binding recorded runs with `binding` (the registry's: retryCommand). */
export function retryCommandFor(binding: RunBinding): Command {
  const HELP = help(binding);
  return {
    name: 'retry',
    summary: "run a finished run's failed jobs again as new attempts, in the same log",
    help: HELP,
    async run(args, io) {
      const { values, positionals } = parseCommandArgs('retry', args, {
        ...endpointOptions,
        ...natsOption,
        ...binding.options,
        ...OUTPUT_OPTIONS,
        failed: { type: 'boolean' },
        out: { type: 'string' },
      });
      if (values.help) {
        io.stdout.write(HELP);
        return EXIT.ok;
      }
      if (positionals.length !== 1) throw new InputError('evalog retry: name one run folder (see evalog retry --help)');
      const mode = outputMode('retry', values, io);
      const { runId, dir, log, kind } = await openRunTarget('retry', positionals[0]!, values, io);
      try {
        // The writer lock before anything is decided: no call while another process writes the run.
        await claimRun(log, runId, kind === 'embedded' ? dir : null, 'retry');
        const rec = await loadRecording(log, runId);
        if (!rec.completed) throw new InputError(`evalog retry: run ${runId} is not complete; finish it first with: evalog resume ${positionals[0]}`);
        const own = await suiteOfRun(rec.started, io.cwd);
        const endpoint = await preflightEndpoint('retry', resumeEndpoint(rec.started.model, values, io.env, suiteCli(rec.started.suite).endpointEnv, 'retry'));
        const suite = binding.bind(values, io)(rec.started.suite) ?? own?.suite;
        const progress = new ProgressReporter(
          io.stderr,
          systemClock.now,
          (rec.started.config as { provider?: { maxRetryAfterMs?: number } }).provider?.maxRetryAfterMs,
          mode,
        );
        const retry = () =>
          retryRun(log, runId, {
            endpoint,
            players: own?.players ?? [],
            signal: io.signal,
            reason: values.failed ? 'failed' : 'errors',
            suiteOf: (name) => (name === rec.started.suite ? suite : suiteNamed(name)),
          });
        const out = await followDuring(log, runId, (e, recorded) => progress.onEvent(e, recorded), rec.lastSeq, retry);
        progress.finish();
        if (!out.retried) {
          io.stderr.write(
            `evalog: run ${runId} has no job to retry (${values.failed ? 'every job passed' : 'no job ended in errors; --failed also retries the jobs that did not pass'})\n`,
          );
          return EXIT.ok;
        }
        notices(io, mode)(`evalog: retry ${out.retry} of run ${runId}: ${out.jobIds.length} job${out.jobIds.length === 1 ? '' : 's'} run again\n`);
        // An interrupted retry is a run to resume (resume takes the same flags but --failed, which the log now records).
        const hint = `evalog resume ${args.filter((a) => a !== '--failed').join(' ')}`;
        // The run's own --fail-under (run.json) judges it again, with each job's last attempt.
        return await finishRun(log, runId, dir, out.status, io, hint, suite ? outputHooksOf(suite) : suiteNamed, mode, {
          failUnder: recordedFailUnder(rec.started, null),
        });
      } catch (err) {
        if (err instanceof ResumeRefusedError) throw new InputError(`evalog retry: ${err.message}`, { cause: err });
        throw err;
      } finally {
        await log.close();
      }
    },
  };
}

/** `evalog retry`, with every plugin's binding. */
export const retryCommand: Command = withRegistryBinding(retryCommandFor);

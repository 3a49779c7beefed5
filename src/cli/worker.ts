import { realSleep } from '../harness/kernel/env.js';
import { systemClock } from '../core/clock.js';
import { JobQueue, Worker, workerCallers } from '../harness/orchestration/scale-out/index.js';
import { builtInNames, isSuiteFilePath, playersWith, resolveSuite, suiteOfRun } from '../app/index.js';
import type { RunBinding } from '../harness/suite/index.js';
import { ENDPOINT_HELP, endpointOptions, resolveEndpoint } from './endpoint.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import { connectNats, NATS_HELP, natsOption, natsUrl } from './log-target.js';
import { activityLine, workerId } from './scale-out.js';
import { helpLines, withRegistryBinding } from './binding-help.js';

const help = (binding: RunBinding) => `Usage: evalog worker --nats URL [options]

Takes jobs of scaled-out runs (evalog run --nats URL --workers external|N) from the shared
JetStream job queue and runs them with the same actors as an embedded run. Start as many as you
like, on any machines that reach NATS. A job whose worker dies is redelivered after the lease and
resumed from its events by the next worker (no completed model call is repeated); a worker that
was only silent (paused, partitioned) is fenced off: its late events are refused by the log.
SIGTERM or SIGINT: take no new job, let running ones finish for --grace seconds, then hand them
back; a second signal exits at once.

Options:
  --concurrency N       jobs at once (default 4)
  --suite NAME|FILE     only this suite's jobs (repeatable; default every built-in suite); a
                        suite file (.ts, .mts, .js, .mjs) serves runs of that file, resolved from
                        this folder: a run whose recorded file differs is refused
  --lease SECONDS       ack wait of the job queue: how long a silent worker keeps a job (default 30)
  --grace SECONDS       on shutdown, how long running jobs may go on (default 10)
  --id NAME             worker identity shown in the log (default <host>-<pid>-<nonce>)
${NATS_HELP}
${ENDPOINT_HELP}
A run of the built-in scripted model is played by this worker's own scripted model; a run of a
real model needs this worker to be given the same model id (and its endpoint and key).
${helpLines(binding.workerHelp)}`;

const ID = /^[A-Za-z0-9_.:-]{1,100}$/;

/** `evalog worker`, binding recorded runs with `binding` (the registry's: workerCommand). */
export function workerCommandFor(binding: RunBinding): Command {
  const HELP = help(binding);
  return {
    name: 'worker',
    summary: 'take jobs of NATS runs from the shared queue and run them',
    help: HELP,
    async run(args: string[], io: CliIO): Promise<number> {
      const { values, positionals } = parseCommandArgs('worker', args, {
        concurrency: { type: 'string' },
        suite: { type: 'string', multiple: true },
        lease: { type: 'string' },
        grace: { type: 'string' },
        id: { type: 'string' },
        ...binding.options,
        ...natsOption,
        ...endpointOptions,
      });
      if (values.help) {
        io.stdout.write(HELP);
        return EXIT.ok;
      }
      if (positionals.length > 0) throw new InputError(`evalog worker: unexpected argument ${JSON.stringify(positionals[0])}`);
      const nats = natsUrl(values, io.env);
      if (!nats) throw new InputError('evalog worker: give --nats URL (or EVALOG_NATS_URL): workers share jobs through JetStream');
      const concurrency = intFlag('worker', 'concurrency', values.concurrency, 4, 1, 1024);
      const leaseMs = intFlag('worker', 'lease', values.lease, 30, 1, 86_400) * 1000;
      const graceMs = intFlag('worker', 'grace', values.grace, 10, 0, 86_400) * 1000;
      const resolved = [];
      for (const s of values.suite ?? builtInNames()) {
        resolved.push(
          await resolveSuite(s, io.cwd).catch((err: unknown) => {
            throw isSuiteFilePath(s)
              ? err
              : new InputError(`evalog worker: --suite ${JSON.stringify(s)} is not a known suite (${builtInNames().join(', ')}) nor a suite file`, {
                  cause: err,
                });
          }),
        );
      }
      const suites = [...new Set(resolved.map((r) => r.suite.name))];
      if (values.id !== undefined && !ID.test(values.id))
        throw new InputError(`evalog worker: --id must be 1-100 letters, digits, "_", ".", ":" or "-", got ${JSON.stringify(values.id)}`);
      const endpoint = resolveEndpoint('worker', values, io.env);
      const id = values.id ?? workerId();

      const bind = binding.bind(values, io);
      const log = await connectNats(nats, io.env);
      const callers = workerCallers(endpoint, systemClock, playersWith(...resolved.map((r) => r.player)));
      try {
        const queue = await JobQueue.open(log.nc, { leaseMs });
        const stop = io.signal ?? new AbortController().signal;
        io.stderr.write(`evalog worker ${id}: taking jobs of ${suites.join(', ')} (concurrency ${concurrency}, lease ${leaseMs / 1000} s)\n`);
        const worker = new Worker({
          log,
          queue,
          id,
          concurrency,
          suites,
          // A run of a suite with a binding is bound to this worker's inputs (refused without them); others as recorded.
          suiteOf: async (name, started) => bind(name) ?? (await suiteOfRun(started, io.cwd))?.suite,
          callerFor: callers.callerFor,
          clock: systemClock,
          sleep: realSleep,
          stop,
          graceMs,
          report: (a) => {
            const line = activityLine(id, a);
            if (line) io.stderr.write(`${line}\n`);
          },
        });
        await worker.run();
        io.stderr.write(`evalog worker ${id}: stopped\n`);
        return EXIT.ok;
      } finally {
        await callers.close();
        await log.close();
      }
    },
  };
}

/** `evalog worker`, with every plugin's binding. */
export const workerCommand: Command = withRegistryBinding(workerCommandFor);

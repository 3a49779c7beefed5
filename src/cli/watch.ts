import { BlobChecker } from '../log/index.js';
import { canonicalJson } from '../core/canonical.js';
import { eventLine } from './event-line.js';
import { EXIT, InputError, type CliIO, type Command, intFlag, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';
import { checkEventTypes, runRecorded } from './watch-checks.js';

const HELP = `Usage: evalog watch <run> [--from SEQ] [--follow] [--wait] [--type T]... [--job J]... [--json] [--nats URL]

Shows a run's event stream from either log: what is recorded from --from on (default the start),
then each new event as it is appended. One line per event (seq, time, actor, type, key fields),
or NDJSON with --json. Ends when the run completes, unless --follow. A run that is not in the log
is refused (exit 2), unless --wait: then watch waits for it to start. <run> is a run folder, or a
run id with --nats.
  --wait       wait for a run that has not started yet
  --type T     only events of this type (repeatable; an unknown type is refused, listing the known ones)
  --job J      only events of this job (repeatable)
${NATS_HELP}
`;

/** `evalog watch`. */
export const watchCommand: Command = {
  name: 'watch',
  summary: 'follow the live event stream of a run',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('watch', args, {
      from: { type: 'string' },
      follow: { type: 'boolean' },
      type: { type: 'string', multiple: true },
      job: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      wait: { type: 'boolean' },
      ...natsOption,
    });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog watch: name one run (see evalog watch --help)');
    const from = intFlag('watch', 'from', values.from, 1, 0);
    checkEventTypes('watch', values.type ?? []);
    const types = new Set(values.type ?? []);
    const jobs = new Set(values.job ?? []);
    const { runId, log, kind, dir } = await openRunTarget('watch', positionals[0]!, { nats: values.nats }, io, false);
    if (!values.wait && !(await runRecorded(log, runId))) {
      await log.close();
      const where = kind === 'nats' ? 'the NATS log' : dir;
      throw new InputError(`evalog watch: no run ${runId} in ${where}; to wait for a run that has not started yet, add --wait`);
    }
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    io.signal?.addEventListener('abort', onAbort, { once: true });
    const blobs = new BlobChecker(log.blobs(runId));
    try {
      for await (const e of log.subscribe(runId, { from, signal: stop.signal })) {
        // A request whose messages are gone or altered ends the watch with exit 2, naming both.
        await blobs.checkEvent(e);
        const shown = (types.size === 0 || types.has(e.type)) && (jobs.size === 0 || (e.jobId !== undefined && jobs.has(e.jobId)));
        if (shown) io.stdout.write(values.json ? `${canonicalJson(e)}\n` : `${eventLine(e)}\n`);
        if (e.type === 'RunCompleted' && !values.follow) break;
      }
      return EXIT.ok;
    } finally {
      io.signal?.removeEventListener('abort', onAbort);
      await log.close();
    }
  },
};

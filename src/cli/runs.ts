import { join, resolve } from 'node:path';
import { FileEventLog } from '../log/file/index.js';
import { jobStatesProjection } from '../projections/job-states.js';
import { fold } from '../projections/fold/projection.js';
import { exists } from '../projections/writer.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { connectNats, NATS_HELP, natsOption, natsUrl } from './log-target.js';

const HELP = `Usage: evalog runs [--dir DIR] [--json] [--nats URL]

Lists the runs in a folder of run folders (default ./runs), or in NATS with --nats, with their
status, event counts and jobs: pending (not started), running (started, not ended) and done;
--json adds the workers that claimed jobs. A run whose writer is gone (crashed, or stopped by an
interrupt) is "interrupted", with the command that continues it; a run whose log cannot be read
is "damaged", with the error.
${NATS_HELP}
`;

/** `evalog runs`. */
export const runsCommand: Command = {
  name: 'runs',
  summary: 'list runs and their status',
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('runs', args, { dir: { type: 'string' }, json: { type: 'boolean' }, ...natsOption }, false);
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    void positionals;
    const nats = natsUrl(values, io.env);
    const root = resolve(io.cwd, values.dir ?? 'runs');
    if (!nats && !(await exists(root))) throw new InputError(`evalog runs: folder ${root} does not exist (give --dir)`);
    const log = nats ? await connectNats(nats, io.env) : await FileEventLog.open({ root });
    const where = nats ? 'NATS' : root;
    try {
      // A damaged run has no job states to fold: it is listed with its error instead.
      const runs = await Promise.all(
        (await log.runs()).map(async (r) => ({ ...r, jobs: r.status === 'damaged' ? null : await fold(jobStatesProjection, log.read(r.runId)) })),
      );
      const resumeHint = (runId: string) => (nats ? `evalog resume ${runId} --nats URL` : `evalog resume ${join(values.dir ?? 'runs', runId)}`);
      if (values.json) {
        for (const r of runs) io.stdout.write(`${JSON.stringify(r.status === 'interrupted' ? { ...r, resume: resumeHint(r.runId) } : r)}\n`);
      } else if (runs.length === 0) {
        io.stdout.write(`no runs in ${where}\n`);
      } else {
        for (const r of runs) {
          const j = r.jobs;
          const jobs = j ? `${j.pending} pending ${j.running} running ${j.succeeded + j.failed}/${j.planned} done` : '';
          const more = r.status === 'damaged' ? `  ${r.error ?? ''}` : r.status === 'interrupted' ? `  continue with: ${resumeHint(r.runId)}` : '';
          io.stdout.write(
            `${r.runId.padEnd(32)} ${r.status.padEnd(11)} ${(r.suite ?? '-').padEnd(20)} ${String(r.events).padStart(8)} events  ${jobs.padEnd(40)} ${r.startedAt ?? ''}${more}\n`,
          );
        }
      }
      return EXIT.ok;
    } finally {
      await log.close();
    }
  },
};

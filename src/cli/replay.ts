import { replayRun } from '../harness/orchestration/replay-resume.js';
import { startOfRun, suiteNamed, suiteOfRun } from '../app/index.js';
import type { RunBinding } from '../harness/suite/index.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';
import { helpLines, withRegistryBinding } from './binding-help.js';

const help = (binding: RunBinding) => `Usage: evalog replay <run> [--json] [--nats URL]

Re-executes the run's actors against the effects recorded in its log (no model is called, the
log is opened read-only and nothing is written) and checks that they emit exactly the logged
events. Exit 0 when every event matches, an unfinished run included (it says so); otherwise exit
1 and a report of the first divergence: its position, job, and the logged and re-emitted events
field by field. A missing or altered blob exits 2. <run> is a run folder, or a run id with --nats.
${helpLines(binding.help)}${NATS_HELP}
`;

/** `evalog replay`, binding recorded runs with `binding` (the registry's: replayCommand). */
export function replayCommandFor(binding: RunBinding): Command {
  const HELP = help(binding);
  return {
    name: 'replay',
    summary: 'prove a run is deterministic by re-running it against its log',
    help: HELP,
    async run(args: string[], io: CliIO): Promise<number> {
      const { values, positionals } = parseCommandArgs('replay', args, { json: { type: 'boolean' }, ...natsOption, ...binding.options });
      if (values.help) {
        io.stdout.write(HELP);
        return EXIT.ok;
      }
      if (positionals.length !== 1) throw new InputError('evalog replay: name one run folder (see evalog replay --help)');
      // Read-only: a replay changes nothing in the log folder, and works on a read-only copy.
      const { runId, log } = await openRunTarget('replay', positionals[0]!, { nats: values.nats }, io, true, true);
      try {
        const bind = binding.bind(values, io);
        // A run of a suite file replays against that file only while it is unchanged (refused otherwise, naming it).
        const started = await startOfRun(log, runId);
        const own = started ? await suiteOfRun(started, io.cwd) : undefined;
        const report = await replayRun(log, runId, (name) => bind(name) ?? (name === own?.suite.name ? own.suite : suiteNamed(name)));
        if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
        if (report.ok) {
          if (!values.json) {
            const unfinished = report.incompleteJobs > 0 ? `; ${report.incompleteJobs} jobs are unfinished in the log (resume them with evalog resume)` : '';
            io.stdout.write(`replayed ${report.events} events of run ${runId}: every event matches (${report.jobs} jobs${unfinished})\n`);
            if (!report.completed && report.incompleteJobs === 0)
              io.stdout.write(`the run is unfinished: its log ends before RunCompleted (finish it with evalog resume)\n`);
          }
          return EXIT.ok;
        }
        if (!values.json) io.stdout.write(describeDivergence(report.divergence));
        return EXIT.failed;
      } finally {
        await log.close();
      }
    },
  };
}

/** `evalog replay`, with every plugin's binding. */
export const replayCommand: Command = withRegistryBinding(replayCommandFor);

function describeDivergence(d: Extract<Awaited<ReturnType<typeof replayRun>>, { ok: false }>['divergence']): string {
  if (d.agent)
    return [
      `divergence at seq ${d.seq} (event ${d.logged.id}), job ${d.jobId ?? '(run)'}:`,
      `  the agent's request ${d.agent.index} (${d.agent.kind}) differs from the record at ${d.agent.field}: ${d.agent.detail}`,
      `  logged:  ${d.logged.type} by ${d.logged.actor}`,
      '',
    ].join('\n');
  const lines = [
    `divergence at seq ${d.seq} (event ${d.logged.id}), job ${d.jobId ?? '(run)'}:`,
    `  logged:  ${d.logged.type} by ${d.logged.actor}`,
    `  emitted: ${d.emitted ? `${(d.emitted as { type: string }).type} by ${(d.emitted as { actor: string }).actor}` : '(nothing)'}`,
  ];
  for (const field of d.fields) {
    const path = field.split('.');
    lines.push(`  ${field}:`, `    logged:  ${show(pick(d.logged, path))}`, `    emitted: ${show(d.emitted ? pick(d.emitted, path) : undefined)}`);
  }
  return `${lines.join('\n')}\n`;
}

function pick(value: unknown, path: string[]): unknown {
  let v = value;
  for (const k of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function show(v: unknown): string {
  const s = v === undefined ? '(absent)' : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

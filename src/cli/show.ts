// `evalog show <run>`: each job's case, arm, status, verdict and reason, input, output and expected
// value, as the rows hold them, readable in a terminal. Folded from the log (answers alone, so no
// suite code is loaded), so it works the same for a run folder and a run id on NATS.
import type { StoredEvent } from '../events/index.js';
import { BlobChecker } from '../log/index.js';
import { agentFailuresFold, neutralise, workspacesFold } from '../projections/index.js';
import { answersFold, finishAnswers, type JobAnswer } from '../projections/answers.js';
import { agentFieldsOf, type ShowField } from './agent-tail.js';
import { diffFieldsOf } from './show-diff.js';
import { EXIT, InputError, type CliIO, type Command, parseCommandArgs } from './io.js';
import { NATS_HELP, natsOption, openRunTarget } from './log-target.js';

const HELP = `Usage: evalog show <run> [--failed] [--job ID] [--nats URL]

Prints, per job, a header line (job id, case, arm, status, verdict), then the reason of the verdict
(the deciding check), the input the job started from, its output and the expected value when the
suite has one: the fields every row of rows.jsonl has, cut as the rows cut them (report.maxTextChars).
A job whose external agent failed (a non-zero exit, a signal, the time limit) also gets how the
process ended and the last lines of its stderr and stdout (at most 20 lines and 4 KiB of each;
control characters in every field are shown escaped, as \\x1b). A job whose grader recorded its
workspace (the coding suite) gets its diff: files and lines changed, then the unified diff's first
200 lines (at most 16 KiB).
  --failed   only the jobs that did not pass: verdict fail, or error (ended without a grade)
  --job ID   only this job (an unknown id is an error, exit 2)
<run> is a run folder, or a run id with --nats.
${NATS_HELP}
`;

/** Lines are wrapped to this width unless the terminal says otherwise. */
const DEFAULT_WIDTH = 100;
const LABEL = 10;

/** `evalog show`. */
export const showCommand: Command = {
  name: 'show',
  summary: "print each job's input, output, expected value, verdict and reason",
  help: HELP,
  async run(args: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseCommandArgs('show', args, { failed: { type: 'boolean' }, job: { type: 'string' }, ...natsOption });
    if (values.help) {
      io.stdout.write(HELP);
      return EXIT.ok;
    }
    if (positionals.length !== 1) throw new InputError('evalog show: name one run folder, or one run id with --nats (see evalog show --help)');
    const { runId, log } = await openRunTarget('show', positionals[0]!, { nats: values.nats }, io, true, true);
    try {
      let state = answersFold.initialState();
      let failures = agentFailuresFold.initialState();
      let workspaces = workspacesFold.initialState();
      let first: StoredEvent | undefined;
      // A missing or altered blob is named (exit 2), as every command that reads a run does.
      const blobs = new BlobChecker(log.blobs(runId));
      for await (const e of blobs.noting(log.read(runId))) {
        first ??= e;
        state = answersFold.evolve(state, e);
        failures = agentFailuresFold.evolve(failures, e);
        workspaces = workspacesFold.evolve(workspaces, e);
      }
      if (first?.type !== 'RunStarted') throw new InputError(`evalog show: run ${runId} has no RunStarted event in the log`);
      await blobs.verify();
      let answers = await finishAnswers(state, log.blobs(runId));
      if (values.job !== undefined) {
        const id = values.job;
        answers = answers.filter((a) => a.job_id === id);
        if (answers.length === 0) throw new InputError(`evalog show: run ${runId} has no job ${JSON.stringify(id)} (--job)`);
      }
      const total = answers.length;
      if (values.failed) answers = answers.filter(didNotPass);
      const width = widthOf(io);
      // Printed job by job while the log is open: a failed agent's output is read from its blobs as its job is printed.
      for (const a of answers) {
        const blobs = log.blobs(runId);
        const more = [...(await agentFieldsOf(failures.get(a.job_id), blobs)), ...(await diffFieldsOf(workspaces.get(a.job_id), blobs))];
        io.stdout.write(formatJob(a, width, more));
      }
      io.stdout.write(footer(answers.length, total, values.failed === true));
    } finally {
      await log.close();
    }
    return EXIT.ok;
  },
};

/** A job that did not pass: its grade failed, or it ended in an error. Ungraded and unfinished jobs are neither. */
export function didNotPass(a: JobAnswer): boolean {
  return a.verdict === 'fail' || a.verdict === 'error';
}

/** One job as `evalog show` prints it: a header line, then each field, labelled and wrapped; `more` fields (a failed agent's output) after. */
export function formatJob(a: JobAnswer, width = DEFAULT_WIDTH, more: readonly ShowField[] = []): string {
  const verdict = a.verdict === null ? 'not graded' : a.verdict.toUpperCase();
  const head = `== ${a.job_id} · case ${a.case_id} · arm ${a.arm} · ${a.status} · ${verdict} `;
  const lines = [head.length < width ? head.padEnd(width, '=') : head];
  // Every field is neutralised, not only an agent's streams: an agent's answer (its stdout) is the output.
  const field = (label: string, text: string | null) => lines.push(...labelled(label, neutralise(text ?? '(none)'), width));
  field('reason', a.reason);
  field('input', a.input);
  field('output', a.output);
  if (a.expected !== undefined) field('expected', a.expected);
  for (const [label, text] of more) field(label, text);
  return `${lines.join('\n')}\n\n`;
}

function footer(shown: number, total: number, failed: boolean): string {
  if (failed) return shown === 0 ? `no job failed (of ${total})\n` : `${shown} of ${total} jobs did not pass\n`;
  return `${shown} ${shown === 1 ? 'job' : 'jobs'}\n`;
}

// The label on the first line, the text's lines after it, each wrapped at word boundaries (a word
// longer than a line is cut), continuation lines indented under the text.
function labelled(label: string, text: string, width: number): string[] {
  const indent = ' '.repeat(LABEL + 2);
  const room = Math.max(20, width - indent.length);
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) out.push(...wrap(line, room));
  return out.map((l, i) => (i === 0 ? `  ${`${label}:`.padEnd(LABEL)}${l}` : `${indent}${l}`).trimEnd());
}

/** A line wrapped to `room` characters at spaces; a word longer than `room` is cut. */
export function wrap(line: string, room: number): string[] {
  if (line.length <= room) return [line];
  const out: string[] = [];
  let rest = line;
  while (rest.length > room) {
    const space = rest.lastIndexOf(' ', room);
    const cut = space > 0 ? space : room;
    out.push(rest.slice(0, cut));
    rest = rest.slice(space > 0 ? cut + 1 : cut);
  }
  out.push(rest);
  return out;
}

function widthOf(io: CliIO): number {
  const columns = (io.stdout as { isTTY?: boolean; columns?: number }).isTTY ? (io.stdout as { columns?: number }).columns : undefined;
  return typeof columns === 'number' && columns >= 40 ? Math.min(columns, 160) : DEFAULT_WIDTH;
}

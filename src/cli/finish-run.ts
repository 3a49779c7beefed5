import type { EventLog } from '../log/index.js';
import { FileEventLog } from '../log/file/index.js';
import { outputFileNames } from '../projections/outputs.js';
import { streamOutputs, type WrittenOutputs } from '../projections/stream/index.js';
import { removeStaleTemps } from '../projections/writer.js';
import type { OutputHooksOf } from '../projections/report.js';
import { fold } from '../projections/fold/projection.js';
import { runOutcomeProjection, type RunOutcome } from '../projections/run-outcome.js';
import { suiteNamed } from '../app/index.js';
import { EXIT, type CliIO } from './io.js';
import type { OutputMode } from './output-flags.js';
import { printOutcome } from './print-outcome.js';
import { completedExit, failureLine } from './run-checks.js';
import { heapForDerivation } from './heap.js';

/** What decides the exit code beside the run's status: the pass threshold, and a breaker's stop. */
export interface FinishChecks {
  failUnder?: number | null;
  /** Set when the breaker stopped the run. */
  halted?: { consecutiveFailures: number };
}

/**
 * The end of every command that runs jobs: an interrupted run says how to continue it; a
 * completed one has its outputs derived from the log, written, and its table printed. `hooksOf`
 * gives a suite loaded from a file its own report (default: the registry's suites). The exit code
 * is 130 interrupted, else 3 when jobs ended in errors, 1 under `--fail-under`, 0 otherwise.
 */
export async function finishRun(
  log: EventLog,
  runId: string,
  dir: string,
  status: 'completed' | 'interrupted',
  io: CliIO,
  resumeHint: string,
  hooksOf: OutputHooksOf = suiteNamed,
  mode?: OutputMode,
  checks: FinishChecks = {},
): Promise<number> {
  if (status === 'interrupted') {
    if (checks.halted) {
      const outcome = await fold(runOutcomeProjection, log.read(runId));
      io.stderr.write(
        `evalog: stopped after ${checks.halted.consecutiveFailures} jobs in a row failed (last: ${failureLine(outcome)}); fix the cause and continue with: ${resumeHint}\n`,
      );
    } else io.stderr.write(`evalog: run interrupted; its log is safe. Continue it with: ${resumeHint}\n`);
    return EXIT.interrupted;
  }
  heapForDerivation();
  // Streamed: rows and calls go to sorted runs on disk as jobs end, so memory stays flat in the run's size.
  const outputs = await streamOutputs(runId, () => log.read(runId), hooksOf, log.blobs(runId));
  let written: WrittenOutputs;
  try {
    // This process holds the run's writer lock, so no one else writes the folder: another pid's temp
    // file is what a writer killed while it wrote these outputs left (a resume writes them again).
    await removeStaleTemps(dir);
    written = await outputs.write(dir);
  } finally {
    outputs.dispose();
  }
  printOutcome(io, written, `wrote ${outputFileNames(written).join(', ')} to ${dir}`, mode);
  return completedRunExit(outputs.outcome, io, checks.failUnder ?? null, showTarget(log, runId, dir));
}

/**
 * The exit code of a completed run (3 jobs ended in errors, 1 under --fail-under, else 0), with its
 * reasons on stderr; `outcome` comes from the outputs' pass over the log, not a read of its own.
 */
export function completedRunExit(outcome: RunOutcome, io: CliIO, failUnder: number | null, show?: string): number {
  const { code, lines } = completedExit(outcome, failUnder);
  for (const line of lines) io.stderr.write(`${line}\n`);
  const agents = show === undefined ? null : agentFailedLine(outcome, show);
  if (agents !== null) io.stderr.write(`${agents}\n`);
  return code;
}

/**
 * The line that sends a reader to what failed agents printed, when any did: the job's reason says
 * only how the process ended, the cause is in its stderr. `show` is `<run>` as `evalog show` takes it.
 */
export function agentFailedLine(outcome: Pick<RunOutcome, 'agentFailed'>, show: string): string | null {
  const n = outcome.agentFailed;
  if (n === 0) return null;
  return `evalog: ${n} ${n === 1 ? 'job' : 'jobs'} ended agent_failed: see \`evalog show ${show} --failed\` for the end of the agent's stderr and stdout`;
}

/** `<run>` for `evalog show`: the run folder of an embedded log, the run id with --nats. */
function showTarget(log: EventLog, runId: string, dir: string): string {
  return log instanceof FileEventLog ? shellWord(dir) : `${runId} --nats URL`;
}

/** A path as a shell word: quoted when it has anything but the usual path characters, so the command can be pasted. */
function shellWord(path: string): string {
  return /^[\w./:@%+=,-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

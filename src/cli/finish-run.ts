import type { EventLog } from '../log/index.js';
import { outputFileNames, rebuildOutputs, writeOutputs } from '../projections/outputs.js';
import type { OutputHooksOf } from '../projections/report.js';
import { suiteNamed } from '../app/index.js';
import { EXIT, type CliIO } from './io.js';
import type { OutputMode } from './output-flags.js';
import { printOutcome } from './print-outcome.js';

/**
 * The end of every command that runs jobs: an interrupted run says how to continue it; a
 * completed one has its outputs derived from the log, written, and its table printed. `hooksOf`
 * gives a suite loaded from a file its own report (default: the registry's suites).
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
): Promise<number> {
  if (status === 'interrupted') {
    io.stderr.write(`evalog: run interrupted; its log is safe. Continue it with: ${resumeHint}\n`);
    return EXIT.interrupted;
  }
  const outputs = await rebuildOutputs(log, runId, hooksOf);
  await writeOutputs(dir, outputs);
  printOutcome(io, outputs, `wrote ${outputFileNames(outputs).join(', ')} to ${dir}`, mode);
  return EXIT.ok;
}

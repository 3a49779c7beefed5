// The CLI's parts a suite's own commands are lent (the contract's CliKit): the same functions the
// generic commands use, so a suite's step that is a run opens its log, runs its jobs, shows its
// progress and ends with the exit codes of `evalog run`.
import { outputHooksOf, type CliKit } from '../app/index.js';
import { endpointOptions } from './endpoint.js';
import { completedRunExit, finishRun } from './finish-run.js';
import { openRunTarget } from './log-target.js';
import { outputMode } from './output-flags.js';
import { preflightEndpoint } from './preflight.js';
import { printOutcome } from './print-outcome.js';
import { runFolder } from './run-folder.js';
import { openStepLog, prepareStepFolder, runStep, STEP_RUN_HELP, stepLogBeside, stepRunOptions, stepWorkers } from './step-run.js';

/** The kit the CLI hands each suite command it loads. */
export const CLI_KIT: CliKit = {
  stepRunOptions,
  stepRunHelp: STEP_RUN_HELP,
  endpointOptions,
  stepWorkers,
  outputMode,
  runFolder,
  openRunTarget,
  openStepLog,
  stepLogBeside,
  prepareStepFolder,
  runStep,
  preflightEndpoint,
  finishRun,
  completedRunExit,
  printOutcome,
  outputHooksOf,
};

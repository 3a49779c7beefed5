// A suite's own published files (a study's raw rows in its spec's layout, say), folded from the log
// like every other output, for suites whose published layout is not rows/summary/usage/run.json.
// The fold sees every event of the run in log order; its files depend on the events only, so a
// rebuild writes the bytes the live run wrote.
import type { StoredEvent } from '../events/index.js';

/** One published file: its path in the output folder and its text (canonical JSON, as `jsonDocument` and `jsonLines` write it). */
export interface OutputFile {
  path: string;
  content: string;
}

/** A suite's files, finished: what is written, and the table the CLI prints. */
export interface SuiteFilesOutput {
  files: OutputFile[];
  table(): string;
}

/** One run's files being derived: fed the run's events in log order, then finished. */
export interface SuiteFilesRun {
  evolve(e: StoredEvent): void;
  finish(): SuiteFilesOutput;
}

/** The files a suite publishes in place of the four, with the fold's state type closed over (`defineOutputs`). */
export interface SuiteOutputs {
  /** Names of the files, in the order they are written (for messages before they exist). */
  readonly files: readonly string[];
  start(): SuiteFilesRun;
}

/** A suite's files as a typed fold: a state per run, an evolve per event, and the files of the final state. */
export interface OutputsSpec<S> {
  files: readonly string[];
  initialState(): S;
  evolve(state: S, e: StoredEvent): S;
  finish(state: S): SuiteFilesOutput;
}

/** Closes a typed fold into a `SuiteOutputs`; each `start` folds one run afresh. */
export function defineOutputs<S>(spec: OutputsSpec<S>): SuiteOutputs {
  return {
    files: spec.files,
    start() {
      let state = spec.initialState();
      return {
        evolve(e) {
          state = spec.evolve(state, e);
        },
        finish: () => spec.finish(state),
      };
    },
  };
}

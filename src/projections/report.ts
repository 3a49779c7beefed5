import type { Projection } from './projection.js';

/** A suite's own rows, summary and table, when the generic ones do not fit its protocol. */
export interface SuiteReport {
  rows: Projection<unknown, Record<string, unknown>[]>;
  summarize(rows: readonly Record<string, unknown>[], header: ReportHeader): unknown;
  table(summary: unknown, header: ReportHeader): string;
}

/** What a report knows of its run besides the rows. */
export interface ReportHeader {
  runId: string;
  suite: string;
  model: string;
  scripted: boolean;
}

/** What the outputs take from a run's suite; a suite has this shape, so the app passes its suites as they are. */
export interface OutputHooks {
  /** The suite's own rows and summary; absent = the generic ones. */
  report?: SuiteReport;
  /** File extension of a case's artifact in the output folder (default `txt`). */
  artifactExtension?(caseId: string): string;
}

/**
 * The hooks of the suite a run names (undefined = an unknown suite: the generic report). Passed
 * in from above, so projections never import the suites or their registry.
 */
export type OutputHooksOf = (suite: string) => OutputHooks | undefined;

// A report's summary as a fold over its published rows, fed one at a time in the order rows.jsonl
// lists them: so a run's summary never needs every row at once, and (fed in that order) a sum of
// floats adds up exactly as a pass over the whole list does.

/** What a report knows of its run besides the rows. */
export interface ReportHeader {
  runId: string;
  suite: string;
  model: string;
  scripted: boolean;
  /** The run's recorded config (RunStarted), for a suite whose summary says how the run was set up; absent in hand-made headers. */
  config?: Readonly<Record<string, unknown>>;
}

/**
 * A summary as a fold with its accumulator's type: `init` per run, `apply` per published row (in
 * rows.jsonl's order), `finish` once. `apply` may update the accumulator in place (it is never shared).
 */
export interface RowFold<R, A, Sum> {
  init(header: ReportHeader): A;
  apply(acc: A, row: R): A;
  finish(acc: A, header: ReportHeader): Sum;
}

/** One run's summary being folded. */
export interface SummaryRun<R, Sum> {
  add(row: R): void;
  finish(): Sum;
}

/** A summary fold with its accumulator's type closed over (`rowFold`), so a report holds it without naming that type. */
export interface SummaryFold<R, Sum> {
  start(header: ReportHeader): SummaryRun<R, Sum>;
}

/** Closes a typed fold into a `SummaryFold`. */
export function rowFold<R, A, Sum>(f: RowFold<R, A, Sum>): SummaryFold<R, Sum> {
  return {
    start(header) {
      let acc = f.init(header);
      return {
        add(row) {
          acc = f.apply(acc, row);
        },
        finish: () => f.finish(acc, header),
      };
    },
  };
}

/** The fold over rows given at once (in their published order). */
export function foldRows<R, Sum>(f: SummaryFold<R, Sum>, rows: Iterable<R>, header: ReportHeader): Sum {
  const run = f.start(header);
  for (const r of rows) run.add(r);
  return run.finish();
}

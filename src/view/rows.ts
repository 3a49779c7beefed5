import { NoRowCoresError, RowCoreError, type RowCore, type RunOutputs } from '../projections/index.js';
import { ATTRIBUTIONS } from '../projections/usage/index.js';

/** A job's outcome as the viewer colours it. */
export type Outcome = 'pass' | 'fail' | 'error' | 'done' | 'running';

/**
 * One row of the rows table: the row's canonical core (as its suite's report maps it, see
 * projections/row-core.ts) without its usage, with the outcome and tokens the viewer shows of it.
 */
export interface ViewRow extends Omit<RowCore, 'usage'> {
  outcome: Outcome;
  /** Total tokens of the job's calls as usage.json counts them; null when calls were made and none reported it. */
  tokens: number | null;
  /** False when some call of the job did not report usage: `tokens` is then a lower bound. */
  tokens_complete: boolean;
}

/** A row as the run page's table shows it: the view and what a reader looks for (src/projections/answers.ts), null where the suite's row has none. */
export interface TableRow extends ViewRow {
  input: string | null;
  output: string | null;
  expected: string | null;
  reason: string | null;
  /** Each check's pass or fail, where the row has a `checks` map (the generic row). */
  checks: Record<string, boolean> | null;
  /** A numeric score: the row's own `score`, else the share of its checks that passed; null without either. */
  score: number | null;
}

const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** The rows' cores through the suite's report; a report whose rows do not give them is the run's error (shown), not the viewer's. */
export function coresOf(outputs: Pick<RunOutputs, 'cores'>): RowCore[] | RowCoreError | NoRowCoresError {
  try {
    return outputs.cores();
  } catch (err) {
    if (err instanceof RowCoreError || err instanceof NoRowCoresError) return err;
    throw err;
  }
}

/** The view of a row's core: whatever its suite, the viewer reads only the core. */
export function viewRow(core: RowCore): ViewRow {
  const { usage, ...who } = core;
  const { tokens, complete } = tokensOf(usage);
  const outcome: Outcome =
    core.status === 'unfinished' ? 'running' : core.status === 'failed' ? 'error' : core.passed === true ? 'pass' : core.passed === false ? 'fail' : 'done';
  return { ...who, outcome, tokens, tokens_complete: complete };
}

/** `viewRow` with the answer fields every row has (projections/answers.ts), and the checks and score of rows that have them. */
export function tableRow(r: Record<string, unknown>, core: RowCore): TableRow {
  return {
    ...viewRow(core),
    input: str(r.input),
    output: str(r.output),
    expected: r.expected === undefined || r.expected === null ? null : (str(r.expected) ?? JSON.stringify(r.expected)),
    reason: str(r.reason),
    checks: checksOf(r.checks),
    score: scoreOf(r),
  };
}

function checksOf(v: unknown): Record<string, boolean> | null {
  if (!obj(v)) return null;
  const out: Record<string, boolean> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'boolean') out[k] = x;
  return Object.keys(out).length > 0 ? out : null;
}

function scoreOf(r: Record<string, unknown>): number | null {
  const own = num(r.score);
  if (own !== null) return own;
  const passed = num(r.checks_passed);
  const total = num(r.checks_total);
  return passed !== null && total !== null && total > 0 ? passed / total : null;
}

/** Sums of the job's total tokens over its attributions; unknown is never counted as zero. */
function tokensOf(usage: RowCore['usage']): { tokens: number | null; complete: boolean } {
  let tokens: number | null = null;
  let calls = 0;
  let complete = true;
  for (const a of ATTRIBUTIONS) {
    const t = usage[a];
    calls += t.calls;
    const f = t.usage.fields.totalTokens;
    if (f.sum !== null) tokens = (tokens ?? 0) + f.sum;
    if (f.unknownCalls > 0) complete = false;
  }
  return { tokens: calls === 0 ? 0 : tokens, complete };
}

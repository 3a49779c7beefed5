import { armJobOf, compareArms, type ArmJob, type SideComparison } from './compare/index.js';
import { foldRows, rowFold, type ReportHeader, type RowFold, type SummaryFold } from './row-fold.js';
import type { Row } from './rows.js';
import { cmp } from './usage/index.js';

/** A token sum of the reported values (null when none was reported) with the attempts it is missing. */
export interface TokenSum {
  sum: number | null;
  unknown_calls: number;
}

/**
 * Per-arm summary. Token means are null when the usage of any attempt of the arm is unknown (a
 * failed or cut-off attempt included): a mean over the known jobs alone would favour the arm with
 * more missing usage.
 */
export interface ArmSummary {
  n: number;
  succeeded: number;
  failed: number;
  unfinished: number;
  passed: number;
  pass_rate: number | null;
  stop_reasons: Record<string, number>;
  failure_reasons: Record<string, number>;
  calls: number;
  failed_calls: number;
  tokens: { input: TokenSum; output: TokenSum; total: TokenSum };
  usage_complete: boolean;
  mean_total_tokens: number | null;
  mean_seconds: number | null;
  median_seconds: number | null;
}

/** summary.json. */
export interface Summary {
  run_id: string;
  suite: string;
  model: string;
  scripted: boolean;
  jobs: number;
  arms: Record<string, ArmSummary>;
  /**
   * The arms compared pairwise by case and repetition, as `evalog compare` compares sides (the
   * same code; sides named by arm; the bootstrap seed in each block): empty for one arm; see
   * `sidePairs` for which pairs.
   */
  paired: SideComparison[];
}

/** The per-arm figures as they fold: counts and sums in row order, and each arm's seconds for its median. */
interface ArmAcc {
  n: number;
  succeeded: number;
  failed: number;
  unfinished: number;
  passed: number;
  stop_reasons: Map<string, number>;
  failure_reasons: Map<string, number>;
  calls: number;
  failed_calls: number;
  tokens: { input: TokenSum; output: TokenSum; total: TokenSum };
  complete: boolean;
  /** Sum of the known seconds, added in row order (as a pass over the list adds them), and how many. */
  secondsSum: number;
  seconds: number[];
}

interface SummaryAcc {
  runId: string;
  jobs: number;
  arms: Map<string, ArmAcc>;
  /** Each row as a job of the arms' comparison: the bootstrap pairs them, so they are kept (small). */
  armJobs: ArmJob[];
}

const TOKEN_FIELDS = { input: 'input_tokens', output: 'output_tokens', total: 'total_tokens' } as const;

/** The generic summary as a fold over the rows in their published order. */
export const summaryFold: RowFold<Row, SummaryAcc, Summary> = {
  init: (header) => ({ runId: header.runId, jobs: 0, arms: new Map(), armJobs: [] }),
  apply(acc, r) {
    acc.jobs += 1;
    let a = acc.arms.get(r.arm);
    if (a === undefined) {
      a = newArm();
      acc.arms.set(r.arm, a);
    }
    a.n += 1;
    if (r.status === 'succeeded') a.succeeded += 1;
    else if (r.status === 'failed') a.failed += 1;
    else if (r.status === 'unfinished') a.unfinished += 1;
    if (r.passed === true) a.passed += 1;
    if (r.stop_reason !== null) a.stop_reasons.set(r.stop_reason, (a.stop_reasons.get(r.stop_reason) ?? 0) + 1);
    const failure = r.failure?.reason ?? null;
    if (failure !== null) a.failure_reasons.set(failure, (a.failure_reasons.get(failure) ?? 0) + 1);
    a.calls += r.calls;
    a.failed_calls += r.failed_calls;
    for (const k of ['input', 'output', 'total'] as const) {
      const v = r.usage.total[TOKEN_FIELDS[k]];
      const t = a.tokens[k];
      if (v !== null) t.sum = (t.sum ?? 0) + v;
      t.unknown_calls += r.usage.total.unknown_calls;
    }
    a.complete &&= r.usage.total.complete;
    if (r.seconds !== null) {
      a.secondsSum += r.seconds;
      a.seconds.push(r.seconds);
    }
    acc.armJobs.push(armJobOf(acc.runId, r));
    return acc;
  },
  finish(acc, header) {
    const arms: Record<string, ArmSummary> = {};
    for (const arm of [...acc.arms.keys()].sort(cmp)) arms[arm] = armSummary(acc.arms.get(arm)!);
    return {
      run_id: header.runId,
      suite: header.suite,
      model: header.model,
      scripted: header.scripted,
      jobs: acc.jobs,
      arms,
      paired: compareArms(header.runId, acc.armJobs),
    };
  },
};

const genericSummary = rowFold(summaryFold);

/** Summarises rows per arm; a pure function of the rows, in sorted order (the fold over them). */
export function summarize(rows: readonly Row[], header: ReportHeader): Summary {
  return foldRows(genericSummary, rows, header);
}

/** The generic summary as the fold a report takes. */
export const genericSummaryFold: SummaryFold<Row, Summary> = genericSummary;

function newArm(): ArmAcc {
  const sum = (): TokenSum => ({ sum: null, unknown_calls: 0 });
  return {
    n: 0,
    succeeded: 0,
    failed: 0,
    unfinished: 0,
    passed: 0,
    stop_reasons: new Map(),
    failure_reasons: new Map(),
    calls: 0,
    failed_calls: 0,
    tokens: { input: sum(), output: sum(), total: sum() },
    complete: true,
    secondsSum: 0,
    seconds: [],
  };
}

function armSummary(a: ArmAcc): ArmSummary {
  const sorted = (m: Map<string, number>) => Object.fromEntries([...m.entries()].sort(([x], [y]) => cmp(x, y)));
  const graded = a.succeeded + a.failed;
  return {
    n: a.n,
    succeeded: a.succeeded,
    failed: a.failed,
    unfinished: a.unfinished,
    passed: a.passed,
    pass_rate: graded > 0 ? a.passed / graded : null,
    stop_reasons: sorted(a.stop_reasons),
    failure_reasons: sorted(a.failure_reasons),
    calls: a.calls,
    failed_calls: a.failed_calls,
    tokens: a.tokens,
    usage_complete: a.complete,
    // Complete: every attempt reported, so a job without any call really used no tokens.
    mean_total_tokens: a.complete && a.n > 0 ? (a.tokens.total.sum ?? 0) / a.n : null,
    mean_seconds: a.seconds.length > 0 ? a.secondsSum / a.seconds.length : null,
    median_seconds: median(a.seconds),
  };
}

/** Median as the mean of the two middle values for even counts. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

import { armJobOf, compareArms, type SideComparison } from './compare/index.js';
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

/** Summarises rows per arm; a pure function of the rows, in sorted order. */
export function summarize(rows: readonly Row[], header: { runId: string; suite: string; model: string; scripted: boolean }): Summary {
  const byArm = new Map<string, Row[]>();
  for (const r of rows) {
    const list = byArm.get(r.arm);
    if (list) list.push(r);
    else byArm.set(r.arm, [r]);
  }
  const arms: Record<string, ArmSummary> = {};
  for (const arm of [...byArm.keys()].sort(cmp)) arms[arm] = summarizeArm(byArm.get(arm)!);
  return {
    run_id: header.runId,
    suite: header.suite,
    model: header.model,
    scripted: header.scripted,
    jobs: rows.length,
    arms,
    paired: compareArms(
      header.runId,
      rows.map((r) => armJobOf(header.runId, r)),
    ),
  };
}

function summarizeArm(rows: Row[]): ArmSummary {
  const count = (pred: (r: Row) => boolean) => rows.filter(pred).length;
  const tally = (key: (r: Row) => string | null) => {
    const out: Record<string, number> = {};
    for (const r of rows) {
      const k = key(r);
      if (k !== null) out[k] = (out[k] ?? 0) + 1;
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => cmp(a, b)));
  };
  const tokenSum = (f: 'input_tokens' | 'output_tokens' | 'total_tokens'): TokenSum => ({
    sum: rows.reduce<number | null>((s, r) => (r.usage.total[f] === null ? s : (s ?? 0) + r.usage.total[f]!), null),
    unknown_calls: rows.reduce((s, r) => s + r.usage.total.unknown_calls, 0),
  });
  const total = tokenSum('total_tokens');
  const complete = rows.every((r) => r.usage.total.complete);
  const seconds = rows.map((r) => r.seconds).filter((s): s is number => s !== null);
  const graded = count((r) => r.status !== 'unfinished');
  const passed = count((r) => r.passed === true);
  return {
    n: rows.length,
    succeeded: count((r) => r.status === 'succeeded'),
    failed: count((r) => r.status === 'failed'),
    unfinished: count((r) => r.status === 'unfinished'),
    passed,
    pass_rate: graded > 0 ? passed / graded : null,
    stop_reasons: tally((r) => r.stop_reason),
    failure_reasons: tally((r) => r.failure?.reason ?? null),
    calls: rows.reduce((s, r) => s + r.calls, 0),
    failed_calls: rows.reduce((s, r) => s + r.failed_calls, 0),
    tokens: { input: tokenSum('input_tokens'), output: tokenSum('output_tokens'), total },
    usage_complete: complete,
    // Complete: every attempt reported, so a job without any call really used no tokens.
    mean_total_tokens: complete && rows.length > 0 ? (total.sum ?? 0) / rows.length : null,
    mean_seconds: seconds.length > 0 ? seconds.reduce((a, b) => a + b, 0) / seconds.length : null,
    median_seconds: median(seconds),
  };
}

/** Median as the mean of the two middle values for even counts. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

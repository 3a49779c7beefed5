// The sides of a comparison: a run's rows, or one arm's. Rows that give a case id, an arm, a
// repetition, a status and a verdict (the generic rows: smoke, dataset, agents, user suites), or
// rows of a suite's own shape read by its report's `armJob` (a study whose rows a spec fixes).
import { cmp } from '../usage/index.js';
import { CompareInputError } from './errors.js';

/** One job as a comparison needs it: where it pairs, whether it was graded, and what it cost. */
export interface SideJob {
  case_id: string;
  repetition: number;
  /** The verdict of a succeeded job; null when it failed, is unfinished, or has no verdict: not paired. */
  passed: boolean | null;
  /** Tokens of the job's calls; null when any call's usage is unknown (never 0 for unknown). */
  tokens: { input: number | null; output: number | null; total: number | null };
  seconds: number | null;
}

/** One job of a run with its arm: what a row gives a comparison (`armJobOf` reads the rows of the generic shape). */
export interface ArmJob extends SideJob {
  arm: string;
}

/** One side: a run (`<run-id>`) or one arm of a run (`<run-id>:<arm>`). */
export interface Side {
  name: string;
  run_id: string;
  arm: string;
  jobs: SideJob[];
}

/** A run's rows, as `evalog rebuild` derives them. */
export interface RunRows {
  runId: string;
  rows: readonly Record<string, unknown>[];
  /** How the rows pair, for a suite whose rows have their own shape (its report's `armJob`); absent = `armJobOf`. */
  armJob?(row: Record<string, unknown>): ArmJob;
}

/**
 * The sides of the runs, in the order named, arms sorted within a run. With `arm`, that arm of each
 * run (a run without it is refused). Without, each arm of each run: a run of one arm is one side,
 * named by the run; a run of several gives one side per arm, named `<run-id>:<arm>`.
 */
export function sidesOf(runs: readonly RunRows[], arm?: string): Side[] {
  const seen = new Set<string>();
  const out: Side[] = [];
  for (const r of runs) {
    if (seen.has(r.runId)) throw new CompareInputError(`evalog compare: run ${r.runId} is named twice`);
    seen.add(r.runId);
    const byArm = new Map<string, SideJob[]>();
    for (const row of r.rows) {
      const { arm: a, ...job } = r.armJob ? r.armJob(row) : armJobOf(r.runId, row);
      const jobs = byArm.get(a) ?? [];
      jobs.push(job);
      byArm.set(a, jobs);
    }
    const arms = [...byArm.keys()].sort(cmp);
    if (arms.length === 0) throw new CompareInputError(`evalog compare: run ${r.runId} has no rows`);
    if (arm !== undefined) {
      if (!byArm.has(arm)) throw new CompareInputError(`evalog compare: --arm ${arm}: run ${r.runId} has no such arm (its arms: ${arms.join(', ')})`);
      out.push({ name: `${r.runId}:${arm}`, run_id: r.runId, arm, jobs: byArm.get(arm)! });
      continue;
    }
    for (const a of arms) out.push({ name: arms.length === 1 ? r.runId : `${r.runId}:${a}`, run_id: r.runId, arm: a, jobs: byArm.get(a)! });
  }
  return out;
}

/**
 * One row of a run as a job to pair: a row with `case_id`, `arm`, `repetition`, `status` and
 * `passed` (the generic rows: smoke, dataset, agents, user suites), its tokens from
 * `usage.total` and its `seconds`. Other row shapes are refused (CompareInputError).
 */
export function armJobOf(runId: string, row: Record<string, unknown>): ArmJob {
  const { case_id, arm, repetition, status, passed } = row;
  if (typeof case_id !== 'string' || typeof arm !== 'string' || !Number.isInteger(repetition)) {
    throw new CompareInputError(`evalog compare: run ${runId}'s rows have no case_id, arm and repetition to pair by (job ${String(row.job_id)})`);
  }
  // A failed job's `passed: false` comes from its failure, not a grader: it concluded nothing.
  const graded = status === 'succeeded' && typeof passed === 'boolean' ? passed : null;
  const seconds = typeof row.seconds === 'number' ? row.seconds : null;
  return { arm, case_id, repetition: repetition as number, passed: graded, tokens: tokensOf(row), seconds };
}

// Only a job whose every call reported its usage has known tokens: a partial sum would read as a saving.
function tokensOf(row: Record<string, unknown>): SideJob['tokens'] {
  const total = (row.usage as { total?: Record<string, unknown> } | undefined)?.total;
  const known = typeof total === 'object' && total !== null && total.complete === true;
  const field = (k: string): number | null => (known && typeof total[k] === 'number' ? (total[k] as number) : null);
  return { input: field('input_tokens'), output: field('output_tokens'), total: field('total_tokens') };
}

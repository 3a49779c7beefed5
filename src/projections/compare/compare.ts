// `evalog compare` as a pure function of the runs' rows and run.json: the protocol check, the sides
// and every comparison of them. Nothing here reads a file or a clock.
import type { BootstrapOptions } from '../../stats/index.js';
import type { RunFile } from '../fold/provenance.js';
import { checkProtocols } from './protocol.js';
import { compareSides, sidePairs, type SideComparison } from './pair.js';
import { sidesOf, type RunRows } from './sides.js';

/** One run to compare: its rows (as rows.jsonl holds them, read by `armJob` when its suite's rows have their own shape) and its run.json. */
export interface CompareRun extends RunRows {
  run: Pick<RunFile, 'suite' | 'config' | 'provenance' | 'model'>;
}

export interface CompareOptions {
  /** Compare only this arm of each run. */
  arm?: string;
  /** Compare runs of different suites or protocols, listing the differences. */
  force: boolean;
  bootstrap: BootstrapOptions;
}

/** What `evalog compare --json` prints. */
export interface Comparison {
  bootstrap: BootstrapOptions;
  /** The differences --force let through, one line each; empty when the runs agree. */
  differences: string[];
  sides: { name: string; run_id: string; arm: string; suite: string; model: string; jobs: number; graded: number; passed: number }[];
  comparisons: SideComparison[];
}

/** Checks the runs' protocols (throws ProtocolMismatchError unless `force`), then compares the sides pairwise. */
export function compareRuns(runs: readonly CompareRun[], options: CompareOptions): Comparison {
  const differences = checkProtocols(runs, options.force);
  const sides = sidesOf(runs, options.arm);
  const runOf = new Map(runs.map((r) => [r.runId, r.run]));
  return {
    bootstrap: { seed: options.bootstrap.seed, iterations: options.bootstrap.iterations, alpha: options.bootstrap.alpha },
    differences,
    sides: sides.map((s) => ({
      name: s.name,
      run_id: s.run_id,
      arm: s.arm,
      suite: runOf.get(s.run_id)!.suite,
      model: runOf.get(s.run_id)!.model.name,
      jobs: s.jobs.length,
      graded: s.jobs.filter((j) => j.passed !== null).length,
      passed: s.jobs.filter((j) => j.passed === true).length,
    })),
    comparisons: sidePairs(sides.length).map(([i, j]) => compareSides(sides[i]!, sides[j]!, options.bootstrap)),
  };
}

// The arms of one run compared with each other, as `evalog compare` compares sides: what every
// run's summary.json holds under `paired`. Jobs of different arms with the same case and
// repetition share their seed (planJobs), so they are pairs.
import { PUBLISHED_BOOTSTRAP, type BootstrapOptions } from '../../stats/index.js';
import { cmp } from '../usage/index.js';
import { compareSides, sidePairs, type SideComparison } from './pair.js';
import type { ArmJob, Side, SideJob } from './sides.js';

/**
 * The bootstrap of a summary's comparisons: `evalog compare`'s defaults (seed 4789, 10000
 * resamples, alpha 0.05), so compare without --seed gives the same figures. A constant, not the
 * run's seed: the interval is then a function of the rows alone, and each block records it.
 */
export const SUMMARY_BOOTSTRAP: BootstrapOptions = PUBLISHED_BOOTSTRAP;

/**
 * The run's arms as sides (named by arm, not `<run-id>:<arm>` as compare names them: the summary is one run's; sorted), compared by `compareSides` in `sidePairs`
 * order: every pair up to ALL_PAIRS_MAX_ARMS arms, else each against the first. One arm: none.
 */
export function compareArms(runId: string, jobs: readonly ArmJob[], bootstrap: BootstrapOptions = SUMMARY_BOOTSTRAP): SideComparison[] {
  const byArm = new Map<string, SideJob[]>();
  for (const { arm, ...job } of jobs) {
    const list = byArm.get(arm);
    if (list) list.push(job);
    else byArm.set(arm, [job]);
  }
  const sides: Side[] = [...byArm.keys()].sort(cmp).map((arm) => ({ name: arm, run_id: runId, arm, jobs: byArm.get(arm)! }));
  return sidePairs(sides.length).map(([i, j]) => compareSides(sides[i]!, sides[j]!, bootstrap));
}

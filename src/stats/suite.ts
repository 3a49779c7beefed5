// One suite block of qa.stats.json (A7/A8): case count, McNemar and bootstrap over the same pairs.
import { pairedBootstrap, type BootstrapOptions, type BootstrapResult } from './bootstrap.js';
import { exactMcNemar, type McNemarResult } from './mcnemar.js';
import type { PairedCases } from './pairs.js';

/** A suite's statistics, shaped like `suites.<name>` in the published qa.stats.json. */
export interface SuiteStats {
  readonly cases: number;
  readonly mcnemar: McNemarResult;
  readonly bootstrap: BootstrapResult;
}

/** McNemar and the bootstrap (freshly seeded, as A8 re-seeds per suite) over one suite's sorted pairs. */
export function pairedSuiteStats(paired: PairedCases, options: BootstrapOptions): SuiteStats {
  return {
    cases: paired.pairs.length,
    mcnemar: exactMcNemar(paired.pairs),
    bootstrap: pairedBootstrap(paired.pairs, options),
  };
}

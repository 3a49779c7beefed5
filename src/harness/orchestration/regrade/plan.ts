import { canonicalJson } from '../../../core/canonical.js';
import { UserError } from '../../../core/errors.js';
import type { DataOf } from '../../../events/index.js';
import { planRun } from '../launch.js';
import type { PluginVersion } from '../provenance.js';
import type { Recording } from '../recording.js';
import type { PreparedSuite } from '../../suite/define.js';

/** The key of run.json's provenance that names a regrade's source (absent for other runs). */
export const REGRADE_KEY = 'regrade';

/** The source run cannot be regraded as asked (its plan changed, it is unfinished): bad input. */
export class RegradeRefusedError extends UserError {
  override name = 'RegradeRefusedError';
}

/**
 * The plan of a regrade: the source's jobs (ids, seeds, order), model and endpoint names, with the
 * config as now prepared (another grader, say), this evalog's provenance and the source named with
 * its log's hash (`plugins`: the suite plugins loaded, as planRun records them). Refused when the
 * suite would now plan other jobs: the answers would not fit.
 */
export function regradePlan(
  source: Recording,
  suite: PreparedSuite,
  from: { runId: string; logSha256: string },
  plugins: readonly PluginVersion[] = [],
): DataOf<'RunStarted'> {
  if (!source.completed) throw new RegradeRefusedError(`run ${from.runId} is not finished; resume it first (a regrade takes every answer from it)`);
  const planned = planRun(suite, { scripted: true }, plugins);
  if (canonicalJson(planned.jobs) !== canonicalJson(source.started.jobs)) {
    throw new RegradeRefusedError(
      `the suite now plans other jobs than run ${from.runId} had (cases, arms or repetitions changed); a regrade needs the same plan`,
    );
  }
  return {
    ...planned,
    jobs: source.started.jobs,
    // The answers are the source's: its model and where it was reached (names of variables only).
    model: source.started.model,
    provenance: { ...planned.provenance, [REGRADE_KEY]: { sourceRunId: from.runId, sourceLogSha256: from.logSha256 } },
  };
}

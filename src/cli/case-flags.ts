// `--case`, `--limit` and `--sample` of `evalog run`: which cases run. The harness chooses (globs,
// then the seeded sample, then the first N) and records the chosen ids in the run's config.
import type { ConfigOverrides } from '../harness/orchestration/config.js';
import { intFlag } from './args.js';

/** The parser's declarations. */
export const CASE_OPTIONS = {
  case: { type: 'string', multiple: true },
  limit: { type: 'string' },
  sample: { type: 'string' },
} as const;

/** Help lines (in `evalog run --help`). */
export const CASE_HELP = `  --case ID|GLOB        run only these cases (repeatable; * and ? match any run of characters
                        and one character: --case 'json-*'); a glob that matches nothing is refused
  --sample N            N cases drawn with the run seed (after --case; all when there are fewer)
  --limit N             the first N cases, in the suite's order, after --case and --sample`;

/** Config overrides from the flags: `cases` as given, and the sample and limit to choose with. */
export function caseOverrides(values: { case?: string[]; limit?: string; sample?: string }): Pick<ConfigOverrides, 'cases' | 'caseSelection'> {
  const sample = values.sample === undefined ? undefined : intFlag('run', 'sample', values.sample, 1, 1);
  const limit = values.limit === undefined ? undefined : intFlag('run', 'limit', values.limit, 1, 1);
  return {
    ...(values.case ? { cases: values.case } : {}),
    ...(sample !== undefined || limit !== undefined
      ? { caseSelection: { ...(sample !== undefined ? { sample } : {}), ...(limit !== undefined ? { limit } : {}) } }
      : {}),
  };
}

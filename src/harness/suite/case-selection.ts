// Choosing a run's cases: `cases` as ids or globs, then a seeded sample, then the first N. The
// result is the id list the run records as `cases`, so resume and replay plan the same jobs
// without choosing again.
import { deriveSeed, mulberry32 } from '../../core/prng.js';
import { UserError } from '../../core/errors.js';

/** How the cases were chosen, as `caseSelection` in the run's config. */
export interface CaseSelection {
  /** `cases` as given (ids and globs), before they were expanded; recorded, never read back. */
  patterns?: string[];
  /** This many cases drawn with the run seed (all when there are fewer). */
  sample?: number;
  /** The first this many, in the suite's case order, after the patterns and the sample. */
  limit?: number;
}

/** A `cases` glob that matches no case of the suite. */
export class CasePatternError extends UserError {
  override name = 'CasePatternError';
  constructor(
    readonly pattern: string,
    known: readonly string[],
  ) {
    const shown = known.length > 20 ? `${known.slice(0, 20).join(', ')}, … (${known.length} in all)` : known.join(', ');
    super(`case pattern ${JSON.stringify(pattern)} (field cases, --case) matches no case; known: ${shown}`);
  }
}

/** Whether an entry of `cases` is a glob (`*` any run of characters, `?` one character). */
export const isCaseGlob = (entry: string): boolean => /[*?]/.test(entry);

/** A glob as an anchored regular expression; every other character stands for itself. */
export function globRegExp(glob: string): RegExp {
  const body = [...glob].map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 's');
}

/**
 * The ids of `all` (in their order) that the entries match: a literal id as itself, a glob by
 * pattern. Literal ids unknown to the suite are left to the caller's own check; a glob that
 * matches nothing is a CasePatternError.
 */
export function expandCasePatterns(all: readonly string[], entries: readonly string[]): string[] {
  const wanted = new Set<string>();
  for (const entry of entries) {
    if (!isCaseGlob(entry)) {
      wanted.add(entry);
      continue;
    }
    const re = globRegExp(entry);
    const hits = all.filter((id) => re.test(id));
    if (hits.length === 0) throw new CasePatternError(entry, all);
    for (const id of hits) wanted.add(id);
  }
  return all.filter((id) => wanted.has(id));
}

/**
 * `n` of the ids drawn with the seed (a partial Fisher–Yates shuffle on the project's mulberry32,
 * seeded from the run seed and a label of its own), given back in their original order. All of
 * them when there are no more than `n`, so choosing again from a chosen list changes nothing.
 */
export function sampleCases(ids: readonly string[], n: number, seed: number): string[] {
  if (ids.length <= n) return [...ids];
  const next = mulberry32(deriveSeed(seed, 'case-sample'));
  const idx = ids.map((_, i) => i);
  for (let i = 0; i < n; i += 1) {
    const j = i + Math.floor(next() * (idx.length - i));
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx
    .slice(0, n)
    .sort((a, b) => a - b)
    .map((i) => ids[i]!);
}

/** The chosen ids, in the suite's order: patterns (or all), then the sample, then the limit. */
export function selectCases(all: readonly string[], cases: readonly string[] | null, selection: CaseSelection, seed: number): string[] {
  let ids = cases === null ? [...all] : expandCasePatterns(all, cases);
  if (selection.sample !== undefined) ids = sampleCases(ids, selection.sample, seed);
  if (selection.limit !== undefined) ids = ids.slice(0, selection.limit);
  return ids;
}

// Seeded paired bootstrap of A8. Every detail is part of the published numbers: the generator
// (CPython MT19937, re-seeded per call), one randrange(count) per resampled case, the
// difference as two separate divisions, a numeric sort, and the floor-based percentile indices.
import { EmptyPairsError, InvalidArgumentError } from './errors.js';
import { CPythonRandom } from './mt19937.js';
import { pairedDifference, type Pair } from './pairs.js';

/** Bootstrap settings (A1 `statistics`: seed 4789, iterations 10000, alpha 0.05). */
export interface BootstrapOptions {
  readonly seed: number;
  readonly iterations: number;
  readonly alpha: number;
}

/** Result of the paired bootstrap; fields are named as in the published qa.stats.json. */
export interface BootstrapResult {
  readonly mean_difference: number;
  readonly lower: number;
  readonly upper: number;
  readonly iterations: number;
  readonly seed: number;
  readonly alpha: number;
}

/** The statistics block of A1 used for the published results. */
export const PUBLISHED_BOOTSTRAP: BootstrapOptions = Object.freeze({ seed: 4789, iterations: 10000, alpha: 0.05 });

/**
 * Indices into the sorted differences: lower = floor((α/2)·N), upper = floor((1−α/2)·N) − 1,
 * clamped to [0, N−1] as the reference does (d[250] and d[9749] for α = 0.05, N = 10000).
 * The float expressions are evaluated in the reference's order so the floors agree.
 */
export function percentileIndices(iterations: number, alpha: number): { lower: number; upper: number } {
  validate(iterations, alpha);
  const lower = Math.floor((alpha / 2) * iterations);
  const upper = Math.floor((1 - alpha / 2) * iterations) - 1;
  return { lower: Math.max(0, lower), upper: Math.min(iterations - 1, Math.max(0, upper)) };
}

function validate(iterations: number, alpha: number): void {
  if (!Number.isSafeInteger(iterations) || iterations < 1) {
    throw new InvalidArgumentError(`iterations must be a positive integer, got ${iterations}`);
  }
  if (!(alpha > 0 && alpha < 1)) throw new InvalidArgumentError(`alpha must be between 0 and 1, got ${alpha}`);
}

/**
 * All N resampled differences (second − first accuracy), in draw order, unsorted. Iteration i
 * draws `count` indices with randrange(count); only the integer sums matter, so summation order
 * cannot change the floats.
 */
export function bootstrapDifferences(pairs: readonly Pair[], seed: number, iterations: number): Float64Array {
  if (pairs.length === 0) throw new EmptyPairsError('The paired bootstrap requires at least one pair');
  validate(iterations, 0.5);
  const rng = new CPythonRandom(seed);
  const count = pairs.length;
  const firsts = Uint8Array.from(pairs, (p) => (p[0] ? 1 : 0));
  const seconds = Uint8Array.from(pairs, (p) => (p[1] ? 1 : 0));
  const out = new Float64Array(iterations);
  // An iteration's count draws of randrange(count) at once (for count > 0 the same draws as
  // randbelow): 2^32 pairs or more no run has, so the one-word path always applies.
  const draws = new Uint32Array(count);
  for (let it = 0; it < iterations; it++) {
    rng.fillBelow(count, draws);
    let sumFirst = 0;
    let sumSecond = 0;
    for (let d = 0; d < count; d++) {
      const i = draws[d]!;
      sumFirst += firsts[i]!;
      sumSecond += seconds[i]!;
    }
    out[it] = sumSecond / count - sumFirst / count;
  }
  return out;
}

/**
 * Seeded paired percentile bootstrap of the accuracy difference (second − first), bit-compatible
 * with the reference. The order of `pairs` matters (it maps draws to cases): use pairOutcomes,
 * which sorts by case id. Throws EmptyPairsError on no pairs, InvalidArgumentError on bad options.
 */
export function pairedBootstrap(pairs: readonly Pair[], options: BootstrapOptions): BootstrapResult {
  const { seed, iterations, alpha } = options;
  validate(iterations, alpha);
  const diffs = bootstrapDifferences(pairs, seed, iterations).sort(); // typed arrays sort numerically
  const idx = percentileIndices(iterations, alpha);
  return {
    mean_difference: pairedDifference(pairs),
    lower: diffs[idx.lower]!,
    upper: diffs[idx.upper]!,
    iterations,
    seed,
    alpha,
  };
}

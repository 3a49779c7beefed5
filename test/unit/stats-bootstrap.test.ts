// Seeded paired bootstrap of spec A8; expected values were computed with CPython 3.11 running
// the A8 rule (random.Random(seed), randrange(count) per case, floor-based percentile indices).
import { expect } from 'chai';
import {
  EmptyPairsError,
  InvalidArgumentError,
  PUBLISHED_BOOTSTRAP,
  bootstrapDifferences,
  pairedBootstrap,
  pairedDifference,
  percentileIndices,
  type Pair,
} from '../../src/stats/index.js';

const T = true;
const F = false;

describe('stats/bootstrap: seeded paired percentile bootstrap', () => {
  it('percentile indices: d[250] and d[9749] for the published settings', () => {
    expect(percentileIndices(10000, 0.05)).to.deep.equal({ lower: 250, upper: 9749 });
    expect(PUBLISHED_BOOTSTRAP).to.deep.equal({ seed: 4789, iterations: 10000, alpha: 0.05 });
  });

  it('percentile indices evaluate floor((α/2)·N) and floor((1−α/2)·N)−1 in float, as the reference', () => {
    // The exact rationals would give 29 and 929; Python's float expressions give these.
    expect(percentileIndices(100, 0.58)).to.deep.equal({ lower: 28, upper: 70 });
    expect(percentileIndices(1000, 0.14)).to.deep.equal({ lower: 70, upper: 928 });
  });

  it('percentile indices are clamped into the array', () => {
    expect(percentileIndices(1, 0.05)).to.deep.equal({ lower: 0, upper: 0 });
    expect(percentileIndices(3, 0.5)).to.deep.equal({ lower: 0, upper: 1 });
  });

  it('matches CPython on a small mixed sample (seed 7, 1000 iterations, α = 0.1)', () => {
    const pairs: Pair[] = [
      [T, F],
      [F, T],
      [T, T],
      [F, F],
      [F, T],
      [F, T],
      [T, F],
    ];
    expect(Array.from(bootstrapDifferences(pairs, 7, 1000).subarray(0, 6))).to.deep.equal([
      -0.14285714285714285, 0.28571428571428575, -0.42857142857142855, 0.0, 0.5714285714285714, 0.0,
    ]);
    expect(pairedBootstrap(pairs, { seed: 7, iterations: 1000, alpha: 0.1 })).to.deep.equal({
      mean_difference: 0.14285714285714285,
      lower: -0.42857142857142855,
      upper: 0.5714285714285714,
      iterations: 1000,
      seed: 7,
      alpha: 0.1,
    });
  });

  it('spec A10: (F,T)×3 gives (1, 1, 1)', () => {
    const r = pairedBootstrap(
      [
        [F, T],
        [F, T],
        [F, T],
      ],
      PUBLISHED_BOOTSTRAP,
    );
    expect([r.mean_difference, r.lower, r.upper]).to.deep.equal([1, 1, 1]);
  });

  it('tiny case: two opposite pairs, 3 iterations', () => {
    const r = pairedBootstrap(
      [
        [T, F],
        [F, T],
      ],
      { seed: 1, iterations: 3, alpha: 0.5 },
    );
    expect([r.mean_difference, r.lower, r.upper]).to.deep.equal([0, -1, 0]);
  });

  it('the mean difference uses two separate divisions (0.875 − 0.575)', () => {
    const pairs: Pair[] = [
      ...Array.from({ length: 22 }, (): Pair => [T, T]),
      ...Array.from({ length: 4 }, (): Pair => [F, F]),
      [T, F],
      ...Array.from({ length: 13 }, (): Pair => [F, T]),
    ];
    expect(pairedDifference(pairs)).to.equal(0.30000000000000004);
    expect(pairedDifference(pairs)).to.not.equal((35 - 23) / 40);
  });

  it('is deterministic and re-seeded per call', () => {
    const pairs: Pair[] = [
      [T, F],
      [F, T],
      [F, T],
      [T, T],
      [F, F],
    ];
    const a = pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP);
    const b = pairedBootstrap(pairs, PUBLISHED_BOOTSTRAP);
    expect(a).to.deep.equal(b);
  });

  it('errors: no pairs, bad iterations, bad alpha', () => {
    expect(() => pairedBootstrap([], PUBLISHED_BOOTSTRAP)).to.throw(EmptyPairsError);
    expect(() => bootstrapDifferences([], 1, 10)).to.throw(EmptyPairsError);
    for (const iterations of [0, -1, 1.5]) {
      expect(() => pairedBootstrap([[T, F]], { seed: 1, iterations, alpha: 0.05 })).to.throw(InvalidArgumentError);
    }
    for (const alpha of [0, 1, -0.1, Number.NaN]) {
      expect(() => pairedBootstrap([[T, F]], { seed: 1, iterations: 10, alpha })).to.throw(InvalidArgumentError);
    }
  });
});

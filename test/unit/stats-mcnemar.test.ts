// Exact McNemar of spec A8, plus the pairing helper it is fed by.
import { expect } from 'chai';
import {
  EmptyPairsError,
  InvalidArgumentError,
  PairingError,
  compareCodePoints,
  exactMcNemar,
  mcnemarExactP,
  pairOutcomes,
  pairedDifference,
  type Pair,
} from '../../src/stats/index.js';

const rep = (pair: Pair, times: number): Pair[] => Array.from({ length: times }, () => pair);

describe('stats/mcnemar: exact two-sided McNemar', () => {
  it('reproduces the published p-values from their discordant counts', () => {
    expect(mcnemarExactP(1, 13)).to.equal(0.0018310546875);
    expect(mcnemarExactP(0, 4)).to.equal(0.125);
    expect(mcnemarExactP(1, 17)).to.equal(0.00014495849609375);
  });

  it('spec A10 vectors', () => {
    expect(exactMcNemar(rep([false, true], 5)).p_value).to.equal(0.0625);
    const pairs = [...rep([false, true], 8), [true, false] as Pair, ...rep([true, true], 3)];
    expect(exactMcNemar(pairs)).to.deep.equal({
      both_correct: 3,
      both_wrong: 0,
      only_first_correct: 1,
      only_second_correct: 8,
      p_value: 2 * 0.5 ** 9 * 10,
    });
  });

  it('is symmetric in b and c and capped at 1', () => {
    expect(mcnemarExactP(13, 1)).to.equal(mcnemarExactP(1, 13));
    expect(mcnemarExactP(3, 3)).to.equal(1);
    expect(mcnemarExactP(0, 1)).to.equal(1);
  });

  it('no discordant pairs: p = 1.0 by definition (not an error)', () => {
    expect(mcnemarExactP(0, 0)).to.equal(1.0);
    expect(
      exactMcNemar([
        [true, true],
        [false, false],
      ]),
    ).to.deep.equal({
      both_correct: 1,
      both_wrong: 1,
      only_first_correct: 0,
      only_second_correct: 0,
      p_value: 1.0,
    });
  });

  it('no pairs at all: EmptyPairsError', () => {
    expect(() => exactMcNemar([])).to.throw(EmptyPairsError, /at least one pair/);
    expect(() => pairedDifference([])).to.throw(EmptyPairsError);
  });

  it('rejects negative or fractional counts', () => {
    expect(() => mcnemarExactP(-1, 2)).to.throw(InvalidArgumentError);
    expect(() => mcnemarExactP(1.5, 2)).to.throw(InvalidArgumentError);
  });

  it('stays finite and in [0, 1] past the double range of the binomial sum', () => {
    const p = mcnemarExactP(700, 700);
    expect(p).to.equal(1);
    const tiny = mcnemarExactP(10, 2000);
    expect(tiny).to.be.at.least(0).and.below(1e-300);
    // Python raises OverflowError here; the exact rational rounds to 0.26805950270208545.
    expect(mcnemarExactP(600, 640)).to.be.closeTo(0.26805950270208545, 1e-16);
  });
});

describe('stats/pairs: pairing per-arm outcomes', () => {
  const o = (caseId: string, arm: string, correct: boolean) => ({ caseId, arm, correct });

  it('pairs by case id, sorted, first/second by arm name, ignoring other arms', () => {
    const paired = pairOutcomes([o('b', 'hyb', true), o('a', 'conf', false), o('b', 'conf', true), o('a', 'hyb', true), o('a', 'other', false)], 'conf', 'hyb');
    expect(paired.caseIds).to.deep.equal(['a', 'b']);
    expect(paired.pairs).to.deep.equal([
      [false, true],
      [true, true],
    ]);
  });

  it('throws PairingError on a duplicate or a missing arm', () => {
    expect(() => pairOutcomes([o('a', 'x', true), o('a', 'x', false), o('a', 'y', true)], 'x', 'y')).to.throw(PairingError, /duplicate.*"a"/);
    expect(() => pairOutcomes([o('a', 'x', true), o('b', 'y', true)], 'x', 'y')).to.throw(PairingError, /a, b/);
    expect(() => pairOutcomes([], 'x', 'x')).to.throw(PairingError);
  });

  it('sorts by code point like Python, not by UTF-16 unit', () => {
    const ids = ['\u{1F600}', '\uFF5E', 'b', 'a'];
    expect([...ids].sort(compareCodePoints)).to.deep.equal(['a', 'b', '\uFF5E', '\u{1F600}']);
    expect(compareCodePoints('ab', 'a')).to.be.above(0);
    expect(compareCodePoints('a', 'a')).to.equal(0);
  });
});

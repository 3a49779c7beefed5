// The numeric scorer: which numbers are read from text, the tolerances, and the reasons (hand-worked),
// with NaN, infinities and out-of-range numbers at every door.
import { expect } from 'chai';
import { numbersIn, numeric, ScorerOptionError } from '../../src/graders/index.js';

describe('scorers: numbers read from text', () => {
  const values = (text: string) => numbersIn(text).map((n) => n.value);

  it('reads signs, decimals, exponents and thousands separators in groups of three', () => {
    expect(values('-5 degrees, +2, −3 (minus sign), .5, 3.25, 1e3, 2.5E-2')).to.deep.equal([-5, 2, -3, 0.5, 3.25, 1000, 0.025]);
    expect(values('1,234,567 and 1,234.5')).to.deep.equal([1234567, 1234.5]);
    expect(values('1,2,3')).to.deep.equal([1, 2, 3]);
    expect(values('1,2345')).to.deep.equal([1, 2345]);
  });

  it('skips numbers glued to a word, reads a hyphen after a digit as a hyphen, ignores units and %', () => {
    expect(values('CO2 v2 A4 x_1')).to.deep.equal([]);
    expect(values('on 2024-05-01')).to.deep.equal([2024, 5, 1]);
    expect(values('version 1.2.3')).to.deep.equal([1.2]);
    expect(values('50% of 12km')).to.deep.equal([50, 12]);
    expect(values('It is 42.')).to.deep.equal([42]);
  });

  it('NaN, Infinity and ∞ are not numbers; an overflowing literal reads as Infinity', () => {
    expect(values('NaN Infinity -Infinity ∞')).to.deep.equal([]);
    expect(numbersIn('1e999')).to.deep.equal([{ text: '1e999', value: Number.POSITIVE_INFINITY }]);
  });
});

describe('scorers: numeric', () => {
  it('without a tolerance: exact, the last number of the output by default', () => {
    const s = numeric();
    expect(s.name).to.equal('numeric');
    expect(s.score('The answer is 42.', 42)).to.deep.equal({ passed: true, detail: 'output number 42 equals 42' });
    expect(s.score('41 or 43? I say 43', 42)).to.deep.equal({ passed: false, detail: 'expected exactly 42, got 43 (off by 1)' });
    expect(s.score('0.30000000000000004', 0.3)).to.deep.equal({ passed: false, detail: 'expected exactly 0.3, got 0.30000000000000004 (off by 5.55112e-17)' });
    expect(s.score('1,234 people', '1,234').passed).to.equal(true);
  });

  it('pick: first, last or only', () => {
    expect(numeric({ pick: 'first' }).score('41 or 43', 41)).to.deep.equal({ passed: true, detail: 'output number 41 equals 41' });
    expect(numeric({ pick: 'only' }).score('41 or 43 or 45', 41)).to.deep.equal({
      passed: false,
      detail: 'expected exactly one number, found 3 in "41 or 43 or 45"',
    });
    expect(numeric({ pick: 'only' }).score('about 41', 41).passed).to.equal(true);
  });

  it('absolute tolerance, with slack for binary rounding at the edge', () => {
    const s = numeric(2.54, { abs: 0.05 });
    expect(s.problem(undefined)).to.equal(null);
    // 2.54 − 2.5 is 0.04000000000000026 in binary; the reason shows 0.04.
    expect(s.score('about 2.5 cm', undefined)).to.deep.equal({ passed: true, detail: 'output number 2.5 is off by 0.04, within ± 0.05 of 2.54' });
    expect(s.score('2.6', undefined)).to.deep.equal({ passed: false, detail: 'expected 2.54 ± 0.05, got 2.6 (off by 0.06)' });
    // 1.1 − 1 is 0.10000000000000009 in binary; written, it is the tolerance itself.
    expect(numeric(1, { abs: 0.1 }).score('1.1', undefined)).to.deep.equal({ passed: true, detail: 'output number 1.1 is off by 0.1, within ± 0.1 of 1' });
    expect(numeric(1, { abs: 0.1 }).score('1.1000001', undefined).passed).to.equal(false);
  });

  it('relative tolerance, a fraction of expected; with abs the larger of the two', () => {
    expect(numeric({ rel: 0.02 }).score('about 103 people', 100)).to.deep.equal({ passed: false, detail: 'expected 100 ± 2 (2%), got 103 (off by 3)' });
    expect(numeric({ rel: 0.02 }).score('-98', -100)).to.deep.equal({ passed: true, detail: 'output number -98 is off by 2, within ± 2 (2%) of -100' });
    expect(numeric(100, { abs: 0.5, rel: 0.02 }).score('101', undefined)).to.deep.equal({
      passed: true,
      detail: 'output number 101 is off by 1, within ± 2 (the larger of 0.5 and 2%) of 100',
    });
    expect(numeric(0, { rel: 0.5 }).score('0.001', undefined)).to.deep.equal({ passed: false, detail: 'expected 0 ± 0 (50%), got 0.001 (off by 0.001)' });
  });

  it('fails with a reason when the output has no number, or one out of range', () => {
    const s = numeric(42);
    expect(s.score('I do not know', undefined)).to.deep.equal({ passed: false, detail: 'expected the number 42, found no number in "I do not know"' });
    expect(s.score('NaN', undefined)).to.deep.equal({ passed: false, detail: 'expected the number 42, found no number in "NaN"' });
    expect(s.score('Infinity', undefined).passed).to.equal(false);
    expect(s.score('1e999', undefined)).to.deep.equal({ passed: false, detail: "the output's number 1e999 is out of range" });
  });

  it('problem(): expected must be a finite number or a string holding exactly one', () => {
    const s = numeric();
    expect(s.problem(undefined)).to.equal('has no "expected"');
    expect(s.problem(Number.NaN)).to.equal('"expected" must be a finite number (or a string holding one) for grader numeric, got NaN');
    expect(s.problem(Number.NEGATIVE_INFINITY)).to.equal('"expected" must be a finite number (or a string holding one) for grader numeric, got -Infinity');
    expect(s.problem('3.14 m')).to.equal('"expected" must be a finite number (or a string holding one) for grader numeric, got "3.14 m"');
    expect(s.problem('1e999')).to.match(/got "1e999"$/);
    expect(s.problem(' 3.14 ')).to.equal(null);
    expect(s.problem(7)).to.equal(null);
  });

  it('refuses bad values and options when built', () => {
    expect(() => numeric(Number.NaN)).to.throw(ScorerOptionError, 'numeric: the value must be a finite number or a string holding one, got NaN');
    expect(() => numeric(1, { abs: -1 })).to.throw(ScorerOptionError, 'numeric: abs must be a number at least 0, got -1');
    expect(() => numeric(1, { rel: Number.POSITIVE_INFINITY })).to.throw(ScorerOptionError, 'numeric: rel must be a number at least 0, got Infinity');
    expect(() => numeric({ tol: 1 } as never)).to.throw(ScorerOptionError, 'numeric: unknown option "tol" (known: abs, rel, pick)');
    expect(() => numeric({ pick: 'middle' } as never)).to.throw(ScorerOptionError, 'numeric: pick must be "last", "first" or "only", got "middle"');
    expect(() => numeric({ abs: 1 }, { rel: 1 })).to.throw(ScorerOptionError, 'numeric: give the options once: numeric(value, options) or numeric(options)');
  });
});

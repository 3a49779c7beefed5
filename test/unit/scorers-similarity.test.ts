// Edit distance and the similarity ratio (1 − distance / longer length, in code points after NFC),
// and the levenshtein and similar scorers built on them: hand-computed distances, ratios and reasons.
import { expect } from 'chai';
import { levenshtein, levenshteinDistance, ScorerOptionError, similar, similarityRatio } from '../../src/graders/index.js';

describe('scorers: Levenshtein distance and ratio', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(levenshteinDistance('kitten', 'sitting')).to.equal(3); // k→s, e→i, +g
    expect(levenshteinDistance('flaw', 'lawn')).to.equal(2); // −f, +n
    expect(levenshteinDistance('', 'abc')).to.equal(3);
    expect(levenshteinDistance('abc', '')).to.equal(3);
    expect(levenshteinDistance('Paris', 'paris')).to.equal(1);
    expect(levenshteinDistance('same', 'same')).to.equal(0);
  });

  it('counts code points after NFC: a composed and a decomposed é are equal, an emoji is one character', () => {
    expect(levenshteinDistance('caf\u00e9', 'cafe\u0301')).to.equal(0);
    expect(levenshteinDistance('naïve', 'naive')).to.equal(1);
    expect(levenshteinDistance('👍👍', '👍')).to.equal(1);
    expect(levenshteinDistance('日本語', '日本')).to.equal(1);
    // In UTF-16 units 'a👍' is 3 long and 2 edits from 'a'; in code points 2 long and 1 edit.
    expect(similarityRatio('a👍', 'a')).to.equal(0.5);
  });

  it('the ratio is 1 − distance / longer length; two empty texts are identical', () => {
    expect(similarityRatio('kitten', 'sitting')).to.equal(1 - 3 / 7);
    expect(similarityRatio('', '')).to.equal(1);
    expect(similarityRatio('abc', 'xyz')).to.equal(0);
    expect(similarityRatio('Pari', 'Paris')).to.equal(0.8);
  });
});

describe('scorers: levenshtein', () => {
  it('passes within max edits of the trimmed value, else says how many', () => {
    const s = levenshtein('kitten', { max: 3 });
    expect(s.name).to.equal('levenshtein');
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('  sitting \n', undefined)).to.deep.equal({ passed: true, detail: 'edit distance 3 to "kitten" (at most 3)' });
    expect(levenshtein({ max: 2 }).score('sitting', 'kitten')).to.deep.equal({
      passed: false,
      detail: 'expected an edit distance of at most 2 to "kitten", got 3 for "sitting"',
    });
    expect(levenshtein({ max: 0 }).score('café', 'cafe\u0301')).to.deep.equal({ passed: true, detail: 'edit distance 0 to "cafe\u0301" (at most 0)' });
  });

  it('problem() and the options refused when built', () => {
    expect(levenshtein({ max: 1 }).problem(undefined)).to.equal('has no "expected"');
    expect(levenshtein({ max: 1 }).problem(['a'])).to.equal('"expected" must be a string (or number) for grader levenshtein, got ["a"]');
    expect(() => levenshtein('x')).to.throw(
      ScorerOptionError,
      'levenshtein: give the most edits that pass: levenshtein({ max: 2 }) or levenshtein(value, { max: 2 })',
    );
    expect(() => levenshtein({ max: 1.5 })).to.throw(ScorerOptionError, 'levenshtein: max must be a whole number of edits, got 1.5');
    expect(() => levenshtein({ max: -1 })).to.throw(ScorerOptionError, 'levenshtein: max must be a number at least 0, got -1');
    expect(() => levenshtein({ max: 1, min: 0 } as never)).to.throw(ScorerOptionError, 'levenshtein: unknown option "min" (known: max)');
  });
});

describe('scorers: similar', () => {
  it('passes at a ratio of at least the threshold (default 0.8); the score is the ratio', () => {
    const s = similar('Paris');
    expect(s.name).to.equal('similar');
    expect(s.score('Pariss', undefined)).to.deep.equal({ passed: true, detail: 'similarity 0.8333 to "Paris" (at least 0.8)', score: 5 / 6 });
    expect(similar().score('Pari', 'Paris')).to.deep.equal({ passed: true, detail: 'similarity 0.8 to "Paris" (at least 0.8)', score: 0.8 });
    expect(similar({ threshold: 0.9 }).score('sitting', 'kitten')).to.deep.equal({
      passed: false,
      detail: 'expected a similarity of at least 0.9 to "kitten", got 0.5714 for "sitting"',
      score: 4 / 7,
    });
    expect(similar('abc', { threshold: 0 }).score('xyz', undefined).passed).to.equal(true);
  });

  it('problem() and the options refused when built', () => {
    expect(similar().problem(undefined)).to.equal('has no "expected"');
    expect(similar('x').problem(undefined)).to.equal(null);
    expect(() => similar({ threshold: 2 })).to.throw(ScorerOptionError, 'similar: threshold must be a number between 0 and 1, got 2');
    expect(() => similar({ treshold: 0.5 } as never)).to.throw(ScorerOptionError, 'similar: unknown option "treshold" (known: threshold)');
    expect(() => similar('')).to.throw(ScorerOptionError, 'similar: the value must be a non-empty string or a finite number, got ""');
    expect(() => similar({ threshold: 0.5 }, { threshold: 0.5 })).to.throw(
      ScorerOptionError,
      'similar: give the options once: similar(value, options) or similar(options)',
    );
  });
});

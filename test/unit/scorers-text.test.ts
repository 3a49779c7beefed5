// The text scorers (equals, exact, contains, icontains, regex): verdicts and reasons worked out by
// hand, what problem() says of a case's `expected`, and the arguments refused when a scorer is built.
import { expect } from 'chai';
import { contains, equals, exact, icontains, regex, ScorerOptionError } from '../../src/graders/index.js';
import { UserError } from '../../src/core/errors.js';

describe('scorers: equals', () => {
  it('compares text after trimming both sides, case kept; a number is its text', () => {
    const s = equals();
    expect(s.name).to.equal('equals');
    expect(s.score('  Paris\n', 'Paris')).to.deep.equal({ passed: true, detail: 'output equals "Paris"' });
    expect(s.score('paris', 'Paris')).to.deep.equal({ passed: false, detail: 'expected "Paris", got "paris"' });
    expect(s.score('Paris', ' Paris ')).to.deep.equal({ passed: true, detail: 'output equals "Paris"' });
    expect(s.score('391', 391)).to.deep.equal({ passed: true, detail: 'output equals "391"' });
    expect(s.score('391.0', 391).passed).to.equal(false);
  });

  it('takes its own value, and then ignores expected', () => {
    const s = equals('Paris');
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('Paris', 'Lyon')).to.deep.equal({ passed: true, detail: 'output equals "Paris"' });
    expect(s.score('Lyon', 'Lyon')).to.deep.equal({ passed: false, detail: 'expected "Paris", got "Lyon"' });
    expect(equals('').score('  \n', undefined)).to.deep.equal({ passed: true, detail: 'output equals ""' });
  });

  it('compares any other JSON value as JSON: parsed (a fence allowed), deep-equal, types kept', () => {
    const s = equals({ city: 'Tokyo', tags: [1, 2] });
    expect(s.score('```json\n{"tags": [1, 2], "city": "Tokyo"}\n```', undefined)).to.deep.equal({
      passed: true,
      detail: 'output equals {"city":"Tokyo","tags":[1,2]} as JSON',
    });
    expect(s.score('{"city": "Tokyo", "tags": [2, 1]}', undefined)).to.deep.equal({
      passed: false,
      detail: 'expected {"city":"Tokyo","tags":[1,2]}, got {"city":"Tokyo","tags":[2,1]}',
    });
    expect(s.score('Tokyo', undefined)).to.deep.equal({ passed: false, detail: 'expected the JSON value {"city":"Tokyo","tags":[1,2]}, got non-JSON "Tokyo"' });
    expect(equals().score('true', true).passed).to.equal(true);
    expect(equals().score('"true"', true)).to.deep.equal({ passed: false, detail: 'expected true, got "true"' });
    expect(equals(null).score('null', undefined).passed).to.equal(true);
  });

  it('problem(): no expected, or one that is not JSON', () => {
    const s = equals();
    expect(s.problem(undefined)).to.equal('has no "expected"');
    expect(s.problem(Number.NaN)).to.equal('"expected" must be a string, a number or a JSON value for grader equals, got NaN');
    expect(s.problem({ when: new Date(0) })).to.match(/^"expected" must be a string, a number or a JSON value for grader equals, got /);
    expect(s.problem({ a: [1, null] })).to.equal(null);
    expect(() => equals(Number.POSITIVE_INFINITY)).to.throw(ScorerOptionError, /^equals: the value must be a string, a number or a JSON value/);
  });
});

describe('scorers: exact keeps working as before', () => {
  it('has its name and its first wording', () => {
    const s = exact();
    expect(s.name).to.equal('exact');
    expect(s.score(' 4 ', 4)).to.deep.equal({ passed: true, detail: 'output equals expected' });
    expect(s.score('5', 4)).to.deep.equal({ passed: false, detail: 'expected "4", got "5"' });
    expect(s.problem([4])).to.equal('"expected" must be a string (or number) for grader exact, got [4]');
  });
});

describe('scorers: contains and icontains', () => {
  it('contains() against expected keeps its first wording (recorded runs carry it)', () => {
    const s = contains();
    expect(s.score('Jupiter is the largest planet.', 'Jupiter')).to.deep.equal({ passed: true, detail: 'output contains expected' });
    expect(s.score('jupiter is big', 'Jupiter')).to.deep.equal({ passed: false, detail: 'expected "Jupiter", got "jupiter is big"' });
    expect(s.problem(undefined)).to.equal('has no "expected"');
    expect(s.problem({ a: 1 })).to.equal('"expected" must be a string (or number) for grader contains, got {"a":1}');
  });

  it('contains(value) names the value in its reasons and ignores expected', () => {
    const s = contains('Paris');
    expect(s.name).to.equal('contains');
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('The capital is Paris.', 'ignored')).to.deep.equal({ passed: true, detail: 'output contains "Paris"' });
    expect(s.score('The capital is paris.', undefined)).to.deep.equal({
      passed: false,
      detail: 'expected the output to contain "Paris", got "The capital is paris."',
    });
    expect(contains(42).score('It is 42.', undefined)).to.deep.equal({ passed: true, detail: 'output contains "42"' });
  });

  it('icontains ignores letter case on both sides, beyond ASCII too', () => {
    const s = icontains();
    expect(s.name).to.equal('icontains');
    expect(s.score('The capital is PARIS.', 'paris')).to.deep.equal({ passed: true, detail: 'output contains "paris" (case ignored)' });
    expect(icontains('ÉCOLE').score('une école', undefined).passed).to.equal(true);
    expect(icontains('Paris').score('Lyon', undefined)).to.deep.equal({
      passed: false,
      detail: 'expected the output to contain "Paris" (case ignored), got "Lyon"',
    });
    expect(s.problem(true)).to.equal('"expected" must be a string (or number) for grader icontains, got true');
  });

  it('refuses an empty or non-text value when built, as a one-line user error', () => {
    expect(() => contains('')).to.throw(ScorerOptionError, 'contains: the value must be a non-empty string or a finite number, got ""');
    expect(() => icontains(Number.NaN)).to.throw(ScorerOptionError, 'icontains: the value must be a non-empty string or a finite number, got NaN');
    const err = (() => {
      try {
        contains('');
      } catch (e) {
        return e;
      }
    })();
    expect(err).to.be.instanceOf(UserError);
  });
});

describe('scorers: regex', () => {
  it('regex() and regex(flags) take the pattern from expected, with their first wording', () => {
    expect(regex().score('Water boils at 100 degrees.', '\\b100\\b')).to.deep.equal({ passed: true, detail: 'output matches /\\b100\\b/' });
    expect(regex().score('Hola.', '\\bhola\\b')).to.deep.equal({ passed: false, detail: 'expected "\\\\bhola\\\\b", got "Hola."' });
    expect(regex('i').score('Hola.', '\\bhola\\b')).to.deep.equal({ passed: true, detail: 'output matches /\\bhola\\b/i' });
    expect(regex().problem('(')).to.match(/^"expected" is not a valid regular expression: /);
    expect(regex().problem(undefined)).to.equal('has no "expected"');
  });

  it('a fixed pattern, as a RegExp or { pattern, flags }, ignores expected', () => {
    const s = regex(/\bParis\b/i);
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('in paris, France', 'ignored')).to.deep.equal({ passed: true, detail: 'output matches /\\bParis\\b/i' });
    expect(s.score('Parisian', undefined)).to.deep.equal({ passed: false, detail: 'expected a match for /\\bParis\\b/i, got "Parisian"' });
    expect(regex({ pattern: '^\\d+$' }).score('123', undefined)).to.deep.equal({ passed: true, detail: 'output matches /^\\d+$/' });
    expect(regex({ flags: 'i' }).score('HOLA', 'hola').passed).to.equal(true);
  });

  it('keeps no state between outputs, even with the g and y flags', () => {
    const s = regex(/a/g);
    expect([s.score('a', undefined).passed, s.score('a', undefined).passed, s.score('a', undefined).passed]).to.deep.equal([true, true, true]);
    const sticky = regex(/b/y);
    expect([sticky.score('b', undefined).passed, sticky.score('b', undefined).passed, sticky.score('ab', undefined).passed]).to.deep.equal([true, true, false]);
  });

  it('refuses, when built, a word given as flags, bad flags, a bad pattern and unknown options', () => {
    expect(() => regex('Paris')).to.throw(
      ScorerOptionError,
      'regex: "Paris" is not a set of flags (distinct letters of "dgimsuvy"); a fixed pattern is given as regex(/…/) or regex({ pattern: "…" })',
    );
    expect(() => regex('ii')).to.throw(ScorerOptionError, /^regex: "ii" is not a set of flags/);
    expect(() => regex('uv')).to.throw(ScorerOptionError, /^regex: "uv" is not a set of flags/);
    expect(() => regex({ pattern: '(' })).to.throw(ScorerOptionError, /^regex: pattern "\(" is not a valid regular expression: /);
    expect(() => regex({ pattern: /a/, flags: 'i' })).to.throw(ScorerOptionError, 'regex: give the flags in the RegExp or in "flags", not both');
    expect(() => regex({ patern: 'a' } as never)).to.throw(ScorerOptionError, 'regex: unknown option "patern" (known: pattern, flags)');
  });
});

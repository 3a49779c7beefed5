import { expect } from 'chai';
import { expectedProblem, grade, parseGrader, type Grader } from '../../src/suites/dataset/index.js';

const g = (name: string): Grader => {
  const parsed = parseGrader(name);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

describe('dataset graders', () => {
  describe('exact', () => {
    it('passes on equal text, surrounding whitespace ignored', () => {
      expect(grade(g('exact'), '  Paris\n', 'Paris')).to.deep.equal({ passed: true, detail: 'output equals expected' });
    });
    it('fails on different text (case matters) and says what it got', () => {
      const v = grade(g('exact'), 'paris', 'Paris');
      expect(v.passed).to.equal(false);
      expect(v.detail).to.equal('expected "Paris", got "paris"');
    });
    it('takes a number as its text', () => {
      expect(grade(g('exact'), '391', 391).passed).to.equal(true);
      expect(grade(g('exact'), '391.0', 391).passed).to.equal(false);
    });
  });

  describe('contains', () => {
    it('passes when the output contains expected', () => {
      expect(grade(g('contains'), 'Jupiter is the largest planet.', 'Jupiter').passed).to.equal(true);
    });
    it('fails otherwise, case-sensitively', () => {
      expect(grade(g('contains'), 'Blue.', 'blue').passed).to.equal(false);
    });
  });

  describe('regex', () => {
    it('passes when the pattern matches', () => {
      expect(grade(g('regex'), 'Water boils at 100 degrees.', '\\b100\\b').passed).to.equal(true);
    });
    it('fails when it does not, and honours flags', () => {
      expect(grade(g('regex'), 'Hola.', '\\bhola\\b').passed).to.equal(false);
      expect(grade(g('regex:i'), 'Hola.', '\\bhola\\b').passed).to.equal(true);
    });
    it('refuses flags outside "imsu" (g and y would make a match stateful)', () => {
      expect(parseGrader('regex:g')).to.match(/regex flags/);
      expect(parseGrader('regex:ii')).to.match(/regex flags/);
    });
  });

  describe('json-field', () => {
    it('passes when the field equals expected, deep, a Markdown fence allowed', () => {
      expect(grade(g('json-field:city'), '{"city": "Tokyo", "country": "Japan"}', 'Tokyo').passed).to.equal(true);
      expect(grade(g('json-field:moons'), '```json\n{"name": "Mars", "moons": 2}\n```', 2).passed).to.equal(true);
      expect(grade(g('json-field:a.b.1'), '{"a": {"b": [0, {"x": [1, 2]}]}}', { x: [1, 2] }).passed).to.equal(true);
      expect(grade(g('json-field'), '[2, 3, 5]', [2, 3, 5]).passed).to.equal(true);
    });
    it('fails on another value (types matter), a missing field, or output that is not JSON', () => {
      expect(grade(g('json-field:primes'), '{"primes": [1, 2, 3]}', [2, 3, 5])).to.deep.equal({
        passed: false,
        detail: 'field primes: expected [2,3,5], got [1,2,3]',
      });
      expect(grade(g('json-field:moons'), '{"moons": "2"}', 2).passed).to.equal(false);
      expect(grade(g('json-field:city'), '{"town": "Tokyo"}', 'Tokyo').detail).to.match(/^field city is missing/);
      expect(grade(g('json-field:city'), 'Tokyo', 'Tokyo').detail).to.match(/^output is not JSON/);
    });
    it('refuses an empty path segment', () => {
      expect(parseGrader('json-field:a..b')).to.match(/empty segment/);
    });
  });

  describe("deterministic-overlap-v1 (memory-eviction's grader, reused)", () => {
    it('passes by its rules (a contained token run)', () => {
      expect(grade(g('deterministic-overlap-v1'), 'Shakespeare', 'William Shakespeare')).to.deep.equal({ passed: true, detail: 'rule substring' });
    });
    it('fails by its rules (INSUFFICIENT, conflicting numbers)', () => {
      expect(grade(g('deterministic-overlap-v1'), 'INSUFFICIENT', 'No cat has visited the Moon')).to.deep.equal({ passed: false, detail: 'rule insufficient' });
      expect(grade(g('deterministic-overlap-v1'), 'It was 1968', 'It was 1969').detail).to.equal('rule numeric-conflict');
    });
  });

  it('names unknown graders and arguments where none are taken', () => {
    expect(parseGrader('fuzzy')).to.match(/unknown grader "fuzzy" \(known: exact, contains/);
    expect(parseGrader('exact:x')).to.equal('grader exact takes no argument');
  });

  it('checks expected against its grader before any run', () => {
    expect(expectedProblem(g('exact'), undefined)).to.equal('has no "expected"');
    expect(expectedProblem(g('exact'), { a: 1 })).to.match(/must be a string \(or number\) for grader exact/);
    expect(expectedProblem(g('regex'), '(')).to.match(/not a valid regular expression/);
    expect(expectedProblem(g('deterministic-overlap-v1'), '?!')).to.match(/has no tokens/);
    expect(expectedProblem(g('json-field:a'), { a: 1 })).to.equal(null);
    expect(expectedProblem(g('contains'), 'x')).to.equal(null);
  });
});

// The javascript scorer: a suite's own function decides; what it may answer, and how a throw or an
// answer of an unknown shape becomes an error verdict (never a pass).
import { expect } from 'chai';
import { javascript, ScorerOptionError } from '../../src/graders/index.js';

describe('scorers: javascript', () => {
  it('a boolean answer is the verdict; the function sees the output, expected and the input', () => {
    const seen: unknown[] = [];
    const s = javascript((output, { expected, input }) => {
      seen.push({ output, expected, input });
      return output.endsWith(String(expected));
    });
    expect(s.name).to.equal('javascript');
    expect(s.problem(undefined)).to.equal(null);
    expect(s.score('The total is 42', 42, { input: 'Add 40 and 2' })).to.deep.equal({ passed: true, detail: 'the function returned true' });
    expect(s.score('The total is 41', 42)).to.deep.equal({ passed: false, detail: 'the function returned false' });
    expect(seen).to.deep.equal([
      { output: 'The total is 42', expected: 42, input: 'Add 40 and 2' },
      { output: 'The total is 41', expected: 42, input: undefined },
    ]);
  });

  it('a number is a score in [0, 1]: passes above 0, or at least the threshold', () => {
    expect(javascript(() => 0.25).score('x', undefined)).to.deep.equal({ passed: true, detail: 'the function returned 0.25 (above 0)', score: 0.25 });
    expect(javascript(() => 0).score('x', undefined)).to.deep.equal({ passed: false, detail: 'the function returned 0, not above 0', score: 0 });
    const strict = javascript(() => 0.3, { threshold: 0.5 });
    expect(strict.score('x', undefined)).to.deep.equal({ passed: false, detail: 'the function returned 0.3, not at least 0.5', score: 0.3 });
    expect(javascript(() => 0.5, { threshold: 0.5 }).score('x', undefined)).to.deep.equal({
      passed: true,
      detail: 'the function returned 0.5 (at least 0.5)',
      score: 0.5,
    });
  });

  it('an object gives pass, and optionally a score and the reason the check records', () => {
    const s = javascript((output) => ({ pass: output.length <= 10, score: output.length <= 10 ? 1 : 0.5, reason: `${output.length} characters` }));
    expect(s.score('short', undefined)).to.deep.equal({ passed: true, detail: '5 characters', score: 1 });
    expect(s.score('far too long here', undefined)).to.deep.equal({ passed: false, detail: '17 characters', score: 0.5 });
    expect(javascript(() => ({ pass: false })).score('x', undefined)).to.deep.equal({ passed: false, detail: 'the function returned fail' });
    expect(javascript(() => ({ pass: true, reason: 'line one\nline two' })).score('x', undefined).detail).to.equal('line one line two');
  });

  it('a throw is an error verdict naming the error, not a pass', () => {
    const s = javascript((output) => JSON.parse(output).ok === true);
    const v = s.score('not json', undefined);
    expect(v.passed).to.equal(false);
    expect(v.error).to.equal(true);
    expect(v.detail).to.match(/^grading error: the function threw: SyntaxError: /);
    const thrown = javascript(() => {
      throw 'plain';
    }).score('x', undefined);
    expect(thrown).to.deep.equal({ passed: false, detail: 'grading error: the function threw: plain', error: true });
  });

  it('an answer of another shape is an error verdict saying what is wrong', () => {
    const answer = (r: unknown) => javascript(() => r as never).score('x', undefined);
    const error = (detail: string) => ({ passed: false, detail: `grading error: ${detail}`, error: true });
    expect(answer('yes')).to.deep.equal(error('the function returned "yes", not a boolean, a number or { pass, score?, reason? }'));
    expect(answer(undefined)).to.deep.equal(error('the function returned undefined, not a boolean, a number or { pass, score?, reason? }'));
    expect(answer(Number.NaN)).to.deep.equal(error('the function returned NaN, not a score between 0 and 1'));
    expect(answer(3)).to.deep.equal(error('the function returned 3, not a score between 0 and 1'));
    expect(answer(Promise.resolve(true))).to.deep.equal(error('the function returned a Promise: a javascript() check must be synchronous'));
    expect(answer({ pass: 'yes' })).to.deep.equal(error('the function\'s "pass" is "yes", not a boolean'));
    expect(answer({ pass: true, score: 2 })).to.deep.equal(error('the function\'s "score" is 2, not a number between 0 and 1'));
    expect(answer({ pass: true, reason: 7 })).to.deep.equal(error('the function\'s "reason" is 7, not a string'));
    expect(answer({ pass: true, reson: 'typo' })).to.deep.equal(error('the function\'s result has unexpected key "reson"'));
  });

  it('takes a name, so two functions record apart; refuses bad arguments when built', () => {
    expect(javascript(() => true, { name: 'short-enough' }).name).to.equal('short-enough');
    expect(() => javascript('x => true' as never)).to.throw(ScorerOptionError, 'javascript: the check must be a function, got "x => true"');
    expect(() => javascript(() => true, { threshold: 1.5 })).to.throw(ScorerOptionError, 'javascript: threshold must be a number between 0 and 1, got 1.5');
    expect(() => javascript(() => true, { name: ' ' })).to.throw(ScorerOptionError, 'javascript: name must be a non-empty string, got " "');
    expect(() => javascript(() => true, { weight: 1 } as never)).to.throw(ScorerOptionError, 'javascript: unknown option "weight" (known: name, threshold)');
  });
});

// Combinations: a weighted score against a threshold, all, any; the detail lists every part's
// verdict; an undecided part makes the whole undecided; judged parts are graded in order.
import { expect } from 'chai';
import {
  all,
  any,
  closedQa,
  contains,
  factuality,
  gradeSample,
  isScorer,
  javascript,
  named,
  regex,
  ScorerOptionError,
  similar,
  weighted,
  type JudgePort,
  type JudgeSample,
  type Scorer,
} from '../../src/graders/index.js';

describe('scorers: weighted', () => {
  const s: Scorer = weighted(
    [
      [contains('Paris'), 2],
      [regex(/^The/), 1],
    ],
    { threshold: 0.6 },
  );

  it('passes at Σ weight·score / Σ weight ≥ threshold, listing each part; the score is the weighted score', () => {
    expect(s.name).to.equal('weighted');
    // contains passes (1 × 2), regex fails (0 × 1): 2 / 3.
    expect(s.score('Paris is the capital', undefined)).to.deep.equal({
      passed: true,
      detail:
        'weighted score 0.667, at least 0.6: [1] contains ×2 pass: output contains "Paris" [2] regex ×1 fail: expected a match for /^The/, got "Paris is the capital"',
      score: 2 / 3,
    });
    const strict = weighted(
      [
        [contains('Paris'), 2],
        [regex(/^The/), 1],
      ],
      { threshold: 0.7 },
    );
    expect(strict.score('Paris is the capital', undefined)).to.deep.include({ passed: false, score: 2 / 3 });
    expect(strict.score('Paris is the capital', undefined).detail).to.match(/^weighted score 0\.667, below 0\.7: \[1\] contains ×2 pass/);
  });

  it("a part's own score counts (a similarity ratio), even when the part fails; a weight of 0 lists without counting", () => {
    const w = weighted(
      [
        [similar('abc'), 1],
        [contains('a'), 1],
        [contains('zzz'), 0],
      ],
      { threshold: 0.8 },
    );
    // similar: 1 − 1/3 = 2/3 (a fail at its own 0.8), contains 1, the third not counted: (2/3 + 1) / 2 = 5/6.
    const v = w.score('ab', undefined);
    expect(v.passed).to.equal(true);
    expect(v.score).to.be.closeTo(5 / 6, 1e-15);
    expect(v.detail).to.equal(
      'weighted score 0.833, at least 0.8: [1] similar ×1 fail: expected a similarity of at least 0.8 to "abc", got 0.6667 for "ab" [2] contains ×1 pass: output contains "a" [3] contains ×0 fail: expected the output to contain "zzz", got "ab"',
    );
  });

  it('decimal weights whose share is the threshold pass (in binary (0.1 + 0.7) / 1 is 0.7999999999999999)', () => {
    const w = weighted(
      [
        [contains('a'), 0.1],
        [contains('b'), 0.7],
        [contains('c'), 0.2],
      ],
      { threshold: 0.8 },
    );
    expect(w.score('ab', undefined)).to.deep.include({ passed: true, score: 0.7999999999999999 });
  });

  it('a part that could not decide makes the whole an error verdict, never a pass', () => {
    const w = weighted(
      [
        [contains('a'), 1],
        [
          javascript(() => {
            throw new Error('bad check');
          }),
          1,
        ],
      ],
      { threshold: 0 },
    );
    expect(w.score('a', undefined)).to.deep.equal({
      passed: false,
      detail:
        'grading error: part [2] javascript could not decide: [1] contains ×1 pass: output contains "a" [2] javascript ×1 error: grading error: the function threw: Error: bad check',
      error: true,
    });
  });

  it('refuses bad parts, weights and thresholds when built', () => {
    expect(() => weighted([], { threshold: 0.5 })).to.throw(ScorerOptionError, 'weighted: give at least one [scorer, weight] part');
    expect(() => weighted([[contains('a'), 1]], { threshold: 1.5 })).to.throw(
      ScorerOptionError,
      'weighted: threshold must be a number between 0 and 1, got 1.5',
    );
    expect(() => weighted([[contains('a'), 1]], {} as never)).to.throw(
      ScorerOptionError,
      'weighted: threshold must be a number between 0 and 1, got undefined',
    );
    expect(() => weighted([[contains('a'), -1]], { threshold: 0.5 })).to.throw(
      ScorerOptionError,
      'weighted: the weight of part 1 must be a number of at least 0, got -1',
    );
    expect(() => weighted([[contains('a'), 0]], { threshold: 0.5 })).to.throw(
      ScorerOptionError,
      'weighted: the weights add up to 0: give at least one part a weight above 0',
    );
    expect(() => weighted([contains('a')] as never, { threshold: 0.5 })).to.throw(ScorerOptionError, /^weighted: part 1 must be \[scorer, weight\], got /);
    expect(() => weighted([[{ name: 'x' }, 1]] as never, { threshold: 0.5 })).to.throw(ScorerOptionError, 'weighted: part 1 is not a scorer, got {"name":"x"}');
  });
});

describe('scorers: all and any', () => {
  it('all passes when every part passes, any when one does; each lists its parts', () => {
    const both = all(contains('a'), contains('b'));
    expect(both.name).to.equal('all');
    expect(both.score('ab', undefined)).to.deep.equal({
      passed: true,
      detail: 'all 2 parts passed: [1] contains pass: output contains "a" [2] contains pass: output contains "b"',
    });
    expect(both.score('a', undefined)).to.deep.equal({
      passed: false,
      detail: '1 of 2 parts failed (all must pass): [1] contains pass: output contains "a" [2] contains fail: expected the output to contain "b", got "a"',
    });
    const either = any(contains('a'), contains('b'));
    expect(either.score('b', undefined).detail).to.equal(
      '1 of 2 parts passed: [1] contains fail: expected the output to contain "a", got "b" [2] contains pass: output contains "b"',
    );
    expect(either.score('c', undefined)).to.deep.include({ passed: false });
    expect(either.score('c', undefined).detail).to.match(/^none of 2 parts passed \(one must\): /);
  });

  it('nest, and problem() names the first part that cannot grade the case', () => {
    const nested = all(any(contains('x'), contains('y')), regex());
    expect(nested.score('x', '^x$').detail).to.equal(
      'all 2 parts passed: [1] any pass: 1 of 2 parts passed: [1] contains pass: output contains "x" [2] contains fail: expected the output to contain "y", got "x" [2] regex pass: output matches /^x$/',
    );
    expect(nested.problem(undefined)).to.equal('part [2] regex: has no "expected"');
    expect(nested.problem('(')).to.match(/^part \[2\] regex: "expected" is not a valid regular expression: /);
    expect(nested.problem('^x$')).to.equal(null);
    expect(() => all()).to.throw(ScorerOptionError, 'all: give at least one scorer');
  });
});

describe('scorers: judged combinations, gradeSample and named', () => {
  const sample: JudgeSample = { input: 'Capital of Australia?', expected: 'Canberra', output: 'Canberra.' };
  const passingJudge = (seen: string[]): JudgePort => ({
    async call(request) {
      const user = request.messages[1]?.content as string;
      seen.push(user.slice(0, user.indexOf('\n</rubric>')));
      return { ok: true, content: '{"verdict": "pass", "reason": "right"}' };
    },
  });

  it('with a judged part the combination is judged; its parts are graded in the order given', async () => {
    const c = weighted(
      [
        [contains('Canberra'), 1],
        [closedQa(), 1],
        [factuality(), 2],
      ],
      { threshold: 1 },
    );
    expect(isScorer(c)).to.equal(false);
    const seen: string[] = [];
    const v = await c.grade(passingJudge(seen), sample);
    expect(v).to.deep.equal({
      passed: true,
      detail:
        'weighted score 1, at least 1: [1] contains ×1 pass: output contains "Canberra" [2] closed-qa ×1 pass: judge: pass: right [3] factuality ×2 pass: judge: pass: right',
      score: 1,
    });
    expect(seen.map((s) => s.split('\n')[1]!.slice(0, 20))).to.deep.equal(['Closed question answ', 'Factual agreement: t']);
    expect(c.problem(undefined)).to.equal('part [2] closed-qa: has no "expected" (grader closed-qa compares the output with the right answer)');
  });

  it('a failed judge call in a part makes the whole an error', async () => {
    const c = any(contains('Canberra'), closedQa());
    const v = await c.grade({ call: async () => ({ ok: false, message: 'server_error: 500' }) }, sample);
    expect(v).to.deep.include({ passed: false, error: true });
    expect(v.detail).to.match(
      /^grading error: part \[2\] closed-qa could not decide: .*\[2\] closed-qa error: grading error: the judge call failed: server_error: 500$/,
    );
  });

  it('gradeSample grades any scorer: a deterministic one sees the input, with no judge call', async () => {
    const calls: unknown[] = [];
    const port: JudgePort = {
      async call(r) {
        calls.push(r);
        return { ok: false, message: 'unused' };
      },
    };
    const seen: unknown[] = [];
    const check = javascript((_o, { input, expected }) => {
      seen.push({ input, expected });
      return true;
    });
    expect(await gradeSample(check, port, sample)).to.deep.equal({ passed: true, detail: 'the function returned true' });
    expect(seen).to.deep.equal([{ input: 'Capital of Australia?', expected: 'Canberra' }]);
    expect(calls).to.deep.equal([]);
    expect(isScorer(check)).to.equal(true);
  });

  it('named gives a grader another check id and keeps how it grades', () => {
    const s = named('capital', contains('Paris'));
    expect(s.name).to.equal('capital');
    expect(s.score('Paris', undefined)).to.deep.equal({ passed: true, detail: 'output contains "Paris"' });
    expect(named('qa', closedQa()).name).to.equal('qa');
    expect(() => named('', contains('a'))).to.throw(ScorerOptionError, 'named: the name must be a non-empty string, got ""');
  });
});

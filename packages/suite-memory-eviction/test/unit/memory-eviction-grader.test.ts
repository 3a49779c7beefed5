// The blind grader `deterministic-overlap-v1` of spec A5: every grader vector of A10, table-driven,
// then the rule order and the normalization details one by one.
import { expect } from 'chai';
import { GRADER_VERSION, gradeAnswer } from 'evalog';
// evalog's own overlap grader, tested to its rules and normalization tables, which its public API does not export.
import { NUMBER_WORDS, normalize, STOPWORDS } from '../../../../src/graders/normalize.js';
import { EmptyReferenceError, type GradeRule } from '../../../../src/graders/overlap.js';

type Vector = [prediction: string, reference: string, correct: boolean, rule: GradeRule];

// A10 gives the verdict for every vector and the rule for most; the rules in brackets are the
// ones A5's order implies where A10 leaves them out.
const A10: Vector[] = [
  ['Seven WEEKS!', '7 weeks', true, 'exact'],
  ['INSUFFICIENT.', '3 weeks', false, 'insufficient'],
  ['Insufficient information', '3 weeks', false, 'overlap-reject'],
  ['5', '25', false, 'numeric-conflict'],
  ['no', 'north', false, 'overlap-reject'],
  ['132 points', '132', true, 'substring'],
  ['Ford F-150 pickup truck.', 'a Ford F-150', true, 'overlap-accept'], // [3 of 5 and 3 of 3 content tokens]
  ['It was 2 and 3', '2', true, 'substring'],
  ['7', 'ranging from five to ten hours', true, 'numeric-range'],
  ['10 to 12', 'ranging from 5 to 12', true, 'numeric-range'],
  ['4', 'ranging from 5 to 10 hours', false, 'numeric-conflict'],
  ['under my bed', 'under the bed', true, 'overlap-accept'],
  ['red kite', 'red balloon ribbon string flag', false, 'overlap-reject'],
  ['50mm prime lens', '70-200mm zoom lens', false, 'overlap-reject'],
  ['of the', '3 weeks', false, 'overlap-reject'],
  ['07', '7', false, 'overlap-reject'],
  ['eleven', '11', false, 'overlap-reject'],
  ['YES', 'NO', false, 'overlap-reject'],
];

describe('memory-eviction grader: deterministic-overlap-v1 (A5)', () => {
  it('is the pinned grader version', () => {
    expect(GRADER_VERSION).to.equal('deterministic-overlap-v1');
  });

  describe('A10 grader vectors', () => {
    for (const [prediction, reference, correct, rule] of A10) {
      it(`${JSON.stringify(prediction)} vs ${JSON.stringify(reference)} → ${correct} (${rule})`, () => {
        expect(gradeAnswer(prediction, reference)).to.deep.equal({ correct, rule });
      });
    }

    it('a reference without tokens is an error, whatever the prediction', () => {
      expect(() => gradeAnswer('x', '  .  ')).to.throw(EmptyReferenceError);
      expect(() => gradeAnswer('', '')).to.throw(EmptyReferenceError);
      expect(() => gradeAnswer('INSUFFICIENT', '—')).to.throw(EmptyReferenceError);
    });

    it('normalize("70-200mm zoom lens") = [70, 200mm, zoom, lens]', () => {
      expect(normalize('70-200mm zoom lens')).to.deep.equal(['70', '200mm', 'zoom', 'lens']);
    });
  });

  describe('normalization', () => {
    it('lowercases, splits on every run outside [0-9a-z] and drops empty tokens', () => {
      expect(normalize("  Hello,WORLD!!  it's 3:45pm ")).to.deep.equal(['hello', 'world', 'it', 's', '3', '45pm']);
      expect(normalize('café über')).to.deep.equal(['caf', 'ber']); // non-ASCII letters separate tokens
      expect(normalize('...')).to.deep.equal([]);
    });

    it('maps exactly the 11 number words, as whole tokens only', () => {
      expect(Object.keys(NUMBER_WORDS)).to.have.length(11);
      expect(normalize('One two THREE four five six seven eight nine ten fifteen')).to.deep.equal(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '15']);
      expect(normalize('eleven twenty tenth someone')).to.deep.equal(['eleven', 'twenty', 'tenth', 'someone']);
      expect(normalize('constructor toString __proto__')).to.deep.equal(['constructor', 'tostring', 'proto']);
    });

    it('has the 126 stopwords, without yes, no and not', () => {
      expect(STOPWORDS.size).to.equal(126);
      for (const w of ['yes', 'no', 'not']) expect(STOPWORDS.has(w)).to.equal(false);
      for (const w of ['a', 'the', 'theirs', 'whether', 'further', 'also', 'under', 'my']) expect(STOPWORDS.has(w)).to.equal(true);
    });
  });

  describe('rule order', () => {
    it('empty-prediction: no tokens at all (empty, blank or punctuation only)', () => {
      for (const p of ['', '   ', '?!.', '—']) expect(gradeAnswer(p, 'NO')).to.deep.equal({ correct: false, rule: 'empty-prediction' });
    });

    it('insufficient: only when the prediction is exactly that one token', () => {
      expect(gradeAnswer(' insufficient ', 'NO').rule).to.equal('insufficient');
      expect(gradeAnswer('Insufficient.', 'insufficient')).to.deep.equal({ correct: false, rule: 'insufficient' });
      expect(gradeAnswer('INSUFFICIENT DATA', 'NO').rule).to.equal('overlap-reject');
    });

    it('exact beats substring; token equality ignores case, punctuation and number words', () => {
      expect(gradeAnswer('No.', 'NO')).to.deep.equal({ correct: true, rule: 'exact' });
      expect(gradeAnswer('two-thirds', '2 thirds')).to.deep.equal({ correct: true, rule: 'exact' });
    });

    it('substring works both ways, on whole contiguous tokens only', () => {
      expect(gradeAnswer('NO, I have not', 'NO')).to.deep.equal({ correct: true, rule: 'substring' });
      expect(gradeAnswer('Tokyo', 'in Tokyo, Japan')).to.deep.equal({ correct: true, rule: 'substring' });
      expect(gradeAnswer('Tok', 'Tokyo')).to.deep.equal({ correct: false, rule: 'overlap-reject' });
      expect(gradeAnswer('Japan Tokyo', 'Tokyo, Japan').rule).to.equal('overlap-accept'); // not contiguous in order
    });

    it('numeric-range: every prediction number within [min, max], bounds in either order', () => {
      expect(gradeAnswer('5 or 10', 'ranging from 5 to 10')).to.deep.equal({ correct: true, rule: 'numeric-range' });
      expect(gradeAnswer('7', 'ranging from 10 to 5 days')).to.deep.equal({ correct: true, rule: 'numeric-range' });
      expect(gradeAnswer('7 and 12', 'ranging from 5 to 10')).to.deep.equal({ correct: false, rule: 'numeric-conflict' });
      // Words may sit between the numbers ("ranging from 3 hours up to 8"), lazily up to the first "to N".
      expect(gradeAnswer('4', 'ranging from 3 hours up to 8 hours')).to.deep.equal({ correct: true, rule: 'numeric-range' });
      // "ranging" must start a word; "arranging from" does not open a range.
      expect(gradeAnswer('7', 'arranging from 5 to 10')).to.deep.equal({ correct: false, rule: 'numeric-conflict' });
    });

    it('numeric-range needs numbers in the prediction; without them the overlap rule decides', () => {
      expect(gradeAnswer('a few hours', 'ranging from 5 to 10 hours')).to.deep.equal({ correct: false, rule: 'overlap-reject' });
    });

    it('numeric-conflict compares the sets of integers (07 equals 7; order and repeats do not matter)', () => {
      expect(gradeAnswer('3 then 2 then 3', '2 and 3 times')).to.deep.equal({ correct: true, rule: 'overlap-accept' }); // {3,2} vs {2,3,times}
      expect(gradeAnswer('about 007 days', '7 whole days')).to.deep.equal({ correct: false, rule: 'overlap-reject' });
      expect(gradeAnswer('in 2023', 'in 2024')).to.deep.equal({ correct: false, rule: 'numeric-conflict' });
      // Integers beyond 2^53 stay exact.
      expect(gradeAnswer('id 9007199254740993', 'id 9007199254740992').rule).to.equal('numeric-conflict');
    });

    it('overlap: ≥ 0.6 of the unique content tokens on each side, stopwords removed', () => {
      expect(gradeAnswer('blue car', 'the blue car parked outside').rule).to.equal('substring');
      expect(gradeAnswer('blue sedan car', 'car blue red').rule).to.equal('overlap-accept'); // 2/3 and 2/3
      expect(gradeAnswer('blue sedan car', 'car blue red tall').rule).to.equal('overlap-reject'); // 2/3 and 2/4
      expect(gradeAnswer('the and of', 'red car').rule).to.equal('overlap-reject'); // no content tokens
    });
  });

  it('is pure: no state between calls', () => {
    const first = A10.map(([p, r]) => gradeAnswer(p, r));
    const second = A10.map(([p, r]) => gradeAnswer(p, r));
    expect(second).to.deep.equal(first);
  });
});

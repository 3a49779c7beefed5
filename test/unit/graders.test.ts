import { expect } from 'chai';
import {
  contains,
  exact,
  jsonField,
  judgeMessages,
  modelGraded,
  overlap,
  parseVerdict,
  regex,
  scriptedJudgePlayer,
  SCRIPTED_MALFORMED,
  type JudgePort,
  type JudgeReply,
  type JudgeSample,
} from '../../src/graders/index.js';
import type { ChatMessage } from '../../src/providers/chat.js';
import type { ChatRequest } from '../../src/providers/scripted/index.js';

describe('graders: deterministic scorers', () => {
  it('exact: trimmed equality, case-sensitive, numbers as their text', () => {
    const s = exact();
    expect(s.name).to.equal('exact');
    expect(s.score('  Paris\n', 'Paris')).to.deep.equal({ passed: true, detail: 'output equals expected' });
    expect(s.score('paris', 'Paris')).to.deep.equal({ passed: false, detail: 'expected "Paris", got "paris"' });
    expect(s.score('391', 391).passed).to.equal(true);
    expect(s.problem({ a: 1 })).to.match(/"expected" must be a string \(or number\) for grader exact/);
    expect(s.problem(undefined)).to.equal('has no "expected"');
    expect(s.problem('x')).to.equal(null);
  });

  it('contains: a case-sensitive substring', () => {
    const s = contains();
    expect(s.score('Jupiter is the largest planet.', 'Jupiter')).to.deep.equal({ passed: true, detail: 'output contains expected' });
    expect(s.score('Blue.', 'blue').passed).to.equal(false);
  });

  it('regex: the pattern with its flags; a bad pattern is a load-time problem', () => {
    expect(regex().score('Hola.', '\\bhola\\b').passed).to.equal(false);
    expect(regex('i').score('Hola.', '\\bhola\\b')).to.deep.equal({ passed: true, detail: 'output matches /\\bhola\\b/i' });
    expect(regex().problem('(')).to.match(/"expected" is not a valid regular expression/);
    expect(regex().problem(7)).to.equal(null);
  });

  it('jsonField: the value at a path deep-equals expected; a fence is allowed; missing or non-JSON fails with a reason', () => {
    expect(jsonField('city').score('{"city": "Tokyo"}', 'Tokyo')).to.deep.equal({ passed: true, detail: 'field city equals expected' });
    expect(jsonField(['a', 'b', '1']).score('{"a": {"b": [0, {"x": [1, 2]}]}}', { x: [1, 2] }).passed).to.equal(true);
    expect(jsonField().score('```json\n[2, 3, 5]\n```', [2, 3, 5]).passed).to.equal(true);
    expect(jsonField('moons').score('{"moons": "2"}', 2)).to.deep.equal({ passed: false, detail: 'field moons: expected 2, got "2"' });
    expect(jsonField('city').score('{"town": "Tokyo"}', 'Tokyo').detail).to.match(/^field city is missing/);
    expect(jsonField('city').score('Tokyo', 'Tokyo').detail).to.match(/^output is not JSON/);
    expect(jsonField().problem({ any: 'value' })).to.equal(null);
  });

  it('overlap: deterministic-overlap-v1, the verdict naming its rule; a reference without tokens is refused at load', () => {
    const s = overlap();
    expect(s.name).to.equal('deterministic-overlap-v1');
    expect(s.score('Shakespeare', 'William Shakespeare')).to.deep.equal({ passed: true, detail: 'rule substring' });
    expect(s.score('INSUFFICIENT', 'a cat')).to.deep.equal({ passed: false, detail: 'rule insufficient' });
    expect(s.score('in 1970', 'in 1969')).to.deep.equal({ passed: false, detail: 'rule numeric-conflict' });
    expect(s.problem('!!!')).to.equal('"expected" has no tokens for deterministic-overlap-v1');
  });
});

describe('graders: modelGraded', () => {
  const sample: JudgeSample = { input: 'What is the capital of France?', expected: 'Paris', output: 'It is Paris.' };
  const port = (reply: JudgeReply, seen: ChatMessage[][] = []): JudgePort => ({
    call: async (r) => {
      seen.push(r.messages);
      return reply;
    },
  });

  it('parses a strict verdict: exactly {"verdict": "pass" | "fail", "reason": non-empty}, a fence allowed', () => {
    expect(parseVerdict('{"verdict": "pass", "reason": "says Paris"}')).to.deep.equal({ verdict: 'pass', reason: 'says Paris' });
    expect(parseVerdict('```json\n{"reason": "no", "verdict": "fail"}\n```')).to.deep.equal({ verdict: 'fail', reason: 'no' });
    expect(parseVerdict(null)).to.equal('empty reply');
    expect(parseVerdict('It passes.')).to.equal('not JSON');
    expect(parseVerdict('["pass"]')).to.equal('not a JSON object');
    expect(parseVerdict('{"verdict": "PASS", "reason": "x"}')).to.equal('verdict is not "pass" or "fail"');
    expect(parseVerdict('{"verdict": "pass", "reason": ""}')).to.equal('reason is not a non-empty string');
    expect(parseVerdict('{"verdict": "pass", "reason": "x", "score": 1}')).to.equal('unexpected key "score"');
  });

  it('a pass or fail verdict decides the check; the detail carries the reason', async () => {
    const g = modelGraded({ rubric: 'Pass when it names the capital.' });
    expect(await g.grade(port({ ok: true, content: '{"verdict": "pass", "reason": "names Paris"}' }), sample)).to.deep.equal({
      passed: true,
      detail: 'judge: pass: names Paris',
    });
    expect(await g.grade(port({ ok: true, content: '{"verdict": "fail", "reason": "wrong city"}' }), sample)).to.deep.equal({
      passed: false,
      detail: 'judge: fail: wrong city',
    });
  });

  it('a malformed verdict or a failed judge call is a grading error, never a pass', async () => {
    const g = modelGraded({ rubric: 'Pass when it names the capital.' });
    const malformed = await g.grade(port({ ok: true, content: 'Looks right to me: pass' }), sample);
    expect(malformed).to.deep.equal({ passed: false, detail: 'grading error: malformed verdict (not JSON): "Looks right to me: pass"', error: true });
    const failed = await g.grade(port({ ok: false, message: 'server_error: 500' }), sample);
    expect(failed).to.deep.equal({ passed: false, detail: 'grading error: the judge call failed: server_error: 500', error: true });
  });

  it('the judge request holds the rubric, input, expected and output, and nothing else; its own model when given', async () => {
    const seen: ChatMessage[][] = [];
    await modelGraded({ rubric: '  Be strict.\n' }).grade(port({ ok: true, content: '{"verdict":"pass","reason":"ok"}' }, seen), sample);
    expect(seen[0]).to.deep.equal(judgeMessages('Be strict.', sample));
    const user = seen[0]![1]!.content as string;
    expect(user).to.equal(
      '<rubric>\nBe strict.\n</rubric>\n\n<input>\nWhat is the capital of France?\n</input>\n\n<expected>\nParis\n</expected>\n\n<output>\nIt is Paris.\n</output>',
    );
    expect(judgeMessages('r', { ...sample, expected: null })[1]!.content).to.include('<expected>(none given)</expected>');
    expect(judgeMessages('r', { ...sample, expected: { b: 1, a: [2] } })[1]!.content).to.include('<expected>\n{"a":[2],"b":1}\n</expected>');
    expect(modelGraded({ rubric: 'r', model: 'judge-model' }).request(sample).model).to.equal('judge-model');
    expect(modelGraded({ rubric: 'r' }).request(sample)).to.not.have.property('model');
    expect(() => modelGraded({ rubric: ' \n' })).to.throw(/rubric is empty/);
  });
});

describe('graders: the scripted judge', () => {
  const ask = (messages: ChatMessage[]) => scriptedJudgePlayer({ model: 'm', messages } as ChatRequest, { rng: () => 0, seed: 0 });
  const verdictOf = (rubric: string, s: JudgeSample) => {
    const reply = ask(judgeMessages(rubric, s));
    return reply === null ? null : parseVerdict(reply.content ?? null);
  };

  it('answers only judge requests', () => {
    expect(ask([{ role: 'user', content: 'What is the capital of France?' }])).to.equal(null);
    expect(
      ask([
        { role: 'system', content: 'You grade things.' },
        { role: 'user', content: '<output>\nx\n</output>' },
      ]),
    ).to.equal(null);
  });

  it('passes exactly when the output contains the expected value (case and spacing ignored), or is not empty when none is given', () => {
    expect(verdictOf('r', { input: 'q', expected: 'new  york', output: 'It is New York.' })).to.deep.include({ verdict: 'pass' });
    expect(verdictOf('r', { input: 'q', expected: 'Canberra', output: 'Sydney' })).to.deep.include({ verdict: 'fail' });
    expect(verdictOf('r', { input: 'q', expected: null, output: 'anything' })).to.deep.include({ verdict: 'pass' });
    expect(verdictOf('r', { input: 'q', expected: null, output: ' ' })).to.deep.include({ verdict: 'fail' });
    // The output is read to its last closing tag, so tag-like text inside it is the output's.
    expect(verdictOf('r', { input: 'q', expected: 'Paris', output: '</output> Paris' })).to.deep.include({ verdict: 'pass' });
  });

  it(`returns a malformed verdict when the rubric says "${SCRIPTED_MALFORMED}"`, () => {
    expect(verdictOf(`Grade it. ${SCRIPTED_MALFORMED}`, { input: 'q', expected: 'a', output: 'a' })).to.equal('not JSON');
  });
});

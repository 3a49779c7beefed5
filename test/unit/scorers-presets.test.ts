// The model-graded presets (closed QA, factuality): their rubrics reach the judge, their check ids,
// what problem() says of a case without `expected`, and their verdicts on the offline scripted judge.
import { expect } from 'chai';
import {
  CLOSED_QA_RUBRIC,
  closedQa,
  closedQaRubric,
  FACTUALITY_RUBRIC,
  factuality,
  judgeMessages,
  modelGraded,
  ScorerOptionError,
  scriptedJudgePlayer,
  type JudgePort,
  type JudgeSample,
} from '../../src/graders/index.js';
import type { ChatMessage } from '../../src/providers/chat.js';
import type { ChatRequest } from '../../src/providers/scripted/index.js';

/** A judge port answered by the scripted judge, recording each request it is sent. */
function scriptedPort(seen: { messages: ChatMessage[]; model?: string }[] = []): JudgePort {
  return {
    async call(request) {
      seen.push(request);
      const reply = scriptedJudgePlayer({ model: request.model ?? 'endpoint', messages: request.messages } as ChatRequest, { rng: () => 0, seed: 0 });
      return reply === null ? { ok: false, message: 'not a judge request' } : { ok: true, content: reply.content ?? null };
    },
  };
}

const sample: JudgeSample = { input: 'What is the capital of Australia?', expected: 'Canberra', output: 'The capital is Canberra.' };

describe('scorers: model-graded presets', () => {
  it('closedQa: its rubric and check id reach the judge; the scripted judge decides offline', async () => {
    const g = closedQa();
    expect(g.name).to.equal('closed-qa');
    expect(g.rubric).to.equal(CLOSED_QA_RUBRIC);
    const seen: { messages: ChatMessage[]; model?: string }[] = [];
    expect(await g.grade(scriptedPort(seen), sample)).to.deep.equal({
      passed: true,
      detail: 'judge: pass: scripted judge: the output contains the expected value',
    });
    expect(seen[0]!.messages).to.deep.equal(judgeMessages(CLOSED_QA_RUBRIC, sample));
    expect(seen[0]).to.not.have.property('model');
    expect(await g.grade(scriptedPort(), { ...sample, output: 'Sydney' })).to.deep.equal({
      passed: false,
      detail: 'judge: fail: scripted judge: the output does not contain the expected value',
    });
  });

  it('closedQa: without a criterion a case needs expected; with one it does not', () => {
    expect(closedQa().problem(undefined)).to.equal('has no "expected" (grader closed-qa compares the output with the right answer)');
    expect(closedQa().problem(null)).to.equal('has no "expected" (grader closed-qa compares the output with the right answer)');
    expect(closedQa().problem('Canberra')).to.equal(null);
    const g = closedQa({ criterion: '  Names a city in Australia.  ' });
    expect(g.problem(undefined)).to.equal(null);
    expect(g.rubric).to.equal(closedQaRubric('Names a city in Australia.'));
    expect(g.rubric).to.include('\nNames a city in Australia.\n');
  });

  it('factuality: needs the reference answer; its rubric reaches the judge; a judge model of its own when given', async () => {
    const g = factuality({ model: 'judge-model' });
    expect(g.name).to.equal('factuality');
    expect(g.problem(undefined)).to.equal('has no "expected" (grader factuality compares the output with the reference answer)');
    expect(g.problem({ capital: 'Canberra' })).to.equal(null);
    const seen: { messages: ChatMessage[]; model?: string }[] = [];
    expect((await g.grade(scriptedPort(seen), sample)).passed).to.equal(true);
    expect(seen[0]).to.deep.equal({ messages: judgeMessages(FACTUALITY_RUBRIC, sample), model: 'judge-model' });
    expect(factuality({ name: 'facts' }).name).to.equal('facts');
  });

  it("the rubrics are evalog's own words, not the ones other tools ship", () => {
    for (const rubric of [CLOSED_QA_RUBRIC, closedQaRubric('c'), FACTUALITY_RUBRIC]) {
      expect(rubric).to.not.match(/submitted answer|submission|expert answer|\(A\)|Answer the question by selecting/i);
    }
  });

  it('plain modelGraded keeps its check id and takes any expected; a name when given', () => {
    expect(modelGraded({ rubric: 'r' }).name).to.equal('model');
    expect(modelGraded({ rubric: 'r' }).problem(undefined)).to.equal(null);
    expect(modelGraded({ rubric: 'r', name: 'tone' }).name).to.equal('tone');
    expect(() => modelGraded({ rubric: 'r', name: ' ' })).to.throw(TypeError, 'modelGraded: the name is empty');
  });

  it('refuses bad options when built', () => {
    expect(() => closedQa({ criterion: '' })).to.throw(ScorerOptionError, 'closedQa: criterion must be a non-empty string, got ""');
    expect(() => factuality({ model: '' })).to.throw(ScorerOptionError, 'factuality: model must be a non-empty string, got ""');
    expect(() => factuality({ criterion: 'x' } as never)).to.throw(ScorerOptionError, 'factuality: unknown option "criterion" (known: model, name)');
  });
});

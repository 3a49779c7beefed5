import { expect } from 'chai';
import type { ToolCallRequest } from '../../src/events/index.js';
import type { ChatMessage } from '../../src/providers/chat.js';
import type { ChatRequest, PlayerReply } from '../../src/providers/scripted/index.js';
import { loadSmokeCases, smokeDefinition, smokePlayer, type SmokeCase } from '../../src/suites/smoke/index.js';
import type { CaseSpec, GradeOutput, ToolOutcome } from '../../src/harness/suite/types.js';

const fruit = loadSmokeCases().find((c) => c.id === 'fruit_basket')!;
// fruit_basket: apple 3 × 1.25 + pear 2 × 2.10 + plum 5 × 0.45 = 10.20 (kiwi is in the catalog, not the order)
const FRUIT_TOTAL = '10.20';

const task = (args: unknown, name = 'task', id = 'call_1'): ToolCallRequest => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});
const ctx = (draw: number) => ({ rng: () => draw, seed: 0 });
const request = (messages: ChatMessage[]): ChatRequest => ({ model: 'evalog-scripted', messages }) as ChatRequest;
const briefOf = (reply: PlayerReply | null) => JSON.parse(reply!.toolCalls![0]!.arguments) as { mode: string; brief: string };

describe('smoke suite: acceptDelegation', () => {
  it("accepts exactly one task call with the arm's mode and hands on its brief", () => {
    expect(smokeDefinition.agent.acceptDelegation([task({ mode: 'full', brief: 'ORDER apple qty=3' })], 'full_handoff')).to.deep.equal({
      ok: true,
      mode: 'full',
      brief: 'ORDER apple qty=3',
    });
    expect(smokeDefinition.agent.acceptDelegation([task({ mode: 'brief', brief: 'b' })], 'brief_handoff')).to.include({ ok: true, mode: 'brief' });
  });

  it('refuses a reply without a task call as parent_no_task', () => {
    expect(smokeDefinition.agent.acceptDelegation([], 'full_handoff')).to.deep.equal({
      ok: false,
      reason: 'parent_no_task',
      message: 'expected exactly one task call, got none',
    });
  });

  it('refuses two task calls, or a task call beside another tool, as parent_no_task', () => {
    const two = [task({ mode: 'full', brief: 'a' }), task({ mode: 'full', brief: 'b' }, 'task', 'call_2')];
    expect(smokeDefinition.agent.acceptDelegation(two, 'full_handoff')).to.include({ ok: false, reason: 'parent_no_task' });
    const mixed = [task({ mode: 'full', brief: 'a' }), task({ item: 'apple' }, 'lookup', 'call_2')];
    expect(smokeDefinition.agent.acceptDelegation(mixed, 'full_handoff')).to.include({
      ok: false,
      reason: 'parent_no_task',
      message: 'expected exactly one task call, got task, lookup',
    });
  });

  it("refuses the other arm's mode, a missing brief and unparsable arguments as parent_bad_task", () => {
    for (const args of [{ mode: 'brief', brief: 'b' }, { mode: 'full' }, '{"mode": "full", brief', '["full", "b"]']) {
      expect(smokeDefinition.agent.acceptDelegation([task(args)], 'full_handoff'), JSON.stringify(args)).to.include({ ok: false, reason: 'parent_bad_task' });
    }
  });
});

describe('smoke suite: runTool', () => {
  const tools = { case: fruit, artifact: null, revision: 0 };

  it('lookup returns the unit price line of a catalog item', () => {
    expect(smokeDefinition.agent.runTool('lookup', '{"item":"pear"}', tools)).to.deep.equal({ result: 'PRICE pear=2.10', isError: false });
  });

  it('lookup of an item not in the catalog is a tool error naming it', () => {
    expect(smokeDefinition.agent.runTool('lookup', '{"item":"mango"}', tools)).to.deep.equal({ result: 'error: unknown item "mango"', isError: true });
  });

  it('write_answer saves the trimmed value as a new artifact', () => {
    expect(smokeDefinition.agent.runTool('write_answer', '{"value":" 10.20 "}', tools)).to.deep.equal({ result: 'saved', isError: false, artifact: '10.20' });
  });

  it('an unknown tool is a tool error naming it, with no artifact', () => {
    expect(smokeDefinition.agent.runTool('delete_all', '{}', tools)).to.deep.equal({ result: 'error: unknown tool "delete_all"', isError: true });
  });

  it('arguments that are not a JSON object are a tool error, never a crash', () => {
    for (const raw of ['{"item": ', 'null', '["pear"]']) {
      expect(smokeDefinition.agent.runTool('lookup', raw, tools), raw).to.deep.equal({ result: 'error: arguments are not a JSON object', isError: true });
    }
  });
});

/** The smoke grader is synchronous; this unwraps its checks. */
function gradeChecks(c: CaseSpec<SmokeCase>, final: string | null, answer: string | null) {
  return (smokeDefinition.grade(c, { final, first: null, answer }) as GradeOutput).checks;
}

describe('smoke suite: grade', () => {
  const byId = (artifact: string | null, c: CaseSpec<SmokeCase> = fruit) =>
    Object.fromEntries(gradeChecks(c, artifact, null).map((r) => [r.checkId, r.passed]));

  it('a correct total passes all three hidden checks', () => {
    const checks = gradeChecks(fruit, FRUIT_TOTAL, `DONE ${FRUIT_TOTAL}`);
    expect(checks.map((c) => [c.checkId, c.visibility, c.passed])).to.deep.equal([
      ['answer_saved', 'hidden', true],
      ['two_decimals', 'hidden', true],
      ['total_correct', 'hidden', true],
    ]);
  });

  it('a wrong total fails total_correct only', () => {
    expect(byId('10.21')).to.deep.equal({ answer_saved: true, two_decimals: true, total_correct: false });
    // The careless sum (quantities forgotten) is wrong too.
    expect(byId('3.80')).to.include({ total_correct: false });
  });

  it('a total without two decimals fails the format and the total', () => {
    expect(byId('10.2')).to.deep.equal({ answer_saved: true, two_decimals: false, total_correct: false });
  });

  it('a missing artifact fails every check', () => {
    expect(byId(null)).to.deep.equal({ answer_saved: false, two_decimals: false, total_correct: false });
  });
});

describe('smoke player (scripted model)', () => {
  const parentReq = (arm: string) => request(smokeDefinition.agent.parentRequest(fruit, arm).messages);
  const workerReq = (brief: string) => request(smokeDefinition.agent.workerRequest(fruit, 'brief_handoff', brief).messages);

  it('the parent in full mode copies the order and the PRICE lines of ordered items only', () => {
    const { mode, brief } = briefOf(smokePlayer(parentReq('full_handoff'), ctx(0.5)));
    expect(mode).to.equal('full');
    expect(brief.split('\n').filter((l) => l.startsWith('ORDER '))).to.deep.equal(['ORDER apple qty=3', 'ORDER pear qty=2', 'ORDER plum qty=5']);
    expect(
      brief
        .split('\n')
        .filter((l) => l.startsWith('PRICE '))
        .sort(),
    ).to.deep.equal(['PRICE apple=1.25', 'PRICE pear=2.10', 'PRICE plum=0.45']);
  });

  it('the parent in brief mode copies the order lines without any PRICE line', () => {
    const reply = smokePlayer(parentReq('brief_handoff'), ctx(0.5));
    expect(reply!.toolCalls).to.have.length(1);
    expect(reply!.toolCalls![0]!.name).to.equal('task');
    const { mode, brief } = briefOf(reply);
    expect(mode).to.equal('brief');
    expect(brief).to.contain('ORDER plum qty=5').and.not.contain('PRICE');
  });

  it('the worker looks up the first price the conversation does not give', () => {
    expect(smokePlayer(workerReq('ORDER apple qty=3\nORDER pear qty=2\nPRICE apple=1.25'), ctx(0.5))).to.deep.equal({
      content: null,
      toolCalls: [{ name: 'lookup', arguments: '{"item":"pear"}' }],
    });
  });

  it('the worker writes the total once every price is known (quantities forgotten on a careless draw)', () => {
    const full = briefOf(smokePlayer(parentReq('full_handoff'), ctx(0.5))).brief;
    expect(smokePlayer(workerReq(full), ctx(0.99))!.toolCalls).to.deep.equal([{ name: 'write_answer', arguments: `{"value":"${FRUIT_TOTAL}"}` }]);
    expect(smokePlayer(workerReq(full), ctx(0))!.toolCalls).to.deep.equal([{ name: 'write_answer', arguments: '{"value":"3.80"}' }]);
  });

  it("plays a brief-mode case to DONE through the suite's own tools, and the grader passes it", () => {
    const brief = briefOf(smokePlayer(parentReq('brief_handoff'), ctx(0.5))).brief;
    const messages = smokeDefinition.agent.workerRequest(fruit, 'brief_handoff', brief).messages;
    let artifact: string | null = null;
    const calls: string[] = [];
    for (let turn = 1; turn <= 8; turn++) {
      const reply = smokePlayer(request(messages), ctx(0.99))!;
      if (!reply.toolCalls?.length) {
        expect(reply.content).to.equal(`DONE ${FRUIT_TOTAL}`);
        break;
      }
      const wire = reply.toolCalls.map((t, i) => ({ id: `call_${turn}_${i}`, type: 'function' as const, function: t }));
      messages.push({ role: 'assistant', content: reply.content ?? null, tool_calls: wire });
      for (const w of wire) {
        const out = smokeDefinition.agent.runTool(w.function.name, w.function.arguments, { case: fruit, artifact, revision: 0 }) as ToolOutcome;
        artifact = out.artifact ?? artifact;
        calls.push(`${w.function.name} ${w.function.arguments}`);
        messages.push({ role: 'tool', tool_call_id: w.id, content: out.result });
      }
    }
    expect(calls).to.deep.equal(['lookup {"item":"apple"}', 'lookup {"item":"pear"}', 'lookup {"item":"plum"}', `write_answer {"value":"${FRUIT_TOTAL}"}`]);
    expect(gradeChecks(fruit, artifact, null).every((c) => c.passed)).to.equal(true);
  });

  it('answers nothing it was not written for, leaving it to the next player', () => {
    expect(
      smokePlayer(
        request([
          { role: 'system', content: 'another suite' },
          { role: 'user', content: 'hi' },
        ]),
        ctx(0.5),
      ),
    ).to.equal(null);
  });
});

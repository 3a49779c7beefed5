// smoke's agentTask: the task an external agent is given, played by the scripted model as the worker,
// its tool calls run by the suite's runTool, its saved total graded like the built-in worker's.
import { expect } from 'chai';
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../src/providers/scripted/index.js';
import { expectedTotal, loadSmokeCases, smokeDefinition, smokePlayer, type SmokeCase } from '../../src/suites/smoke/index.js';
import { money } from '../../src/suites/smoke/cases.js';
import type { CaseSpec } from '../../src/harness/suite/types.js';
import { builtInJob, inProcess, overHttp, toolLoop, type Complete } from '../support/agent-loop.js';

const s = smokeDefinition;
const config = s.defaults;
const cases = loadSmokeCases();
const ARMS = ['brief_handoff', 'full_handoff'] as const;
const task = (c: CaseSpec<SmokeCase>, arm: string) => s.agent.agentTask(c, arm);
const agentJob = (c: CaseSpec<SmokeCase>, arm: string, complete: Complete) => toolLoop(c, task(c, arm), complete, s.agent.runTool);
const grade = (c: CaseSpec<SmokeCase>, revisions: string[], answer: string | null) =>
  s.grade(c, { final: revisions.at(-1) ?? null, first: revisions[0] ?? null, answer });
// What the scripted worker saves when its draw makes it careless: the unit prices summed, quantities forgotten.
const carelessTotal = (c: SmokeCase) => money(c.order.reduce((sum, l) => sum + c.catalog[l.item]!, 0));

describe('smoke agentTask: the task one external agent is given', () => {
  const fruit = cases.find((c) => c.id === 'fruit_basket')!;

  it("is the worker's tools and a tagged system message, then the order: full_handoff adds the ordered items' PRICE lines", () => {
    const full = task(fruit, 'full_handoff');
    expect(full.tools).to.deep.equal(s.agent.workerRequest(fruit, 'full_handoff', '').tools);
    expect(full.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(full.messages[0]!.content).to.match(/^\[evalog:smoke:agent\] /);
    expect(full.messages[1]!.content).to.equal(
      [
        'Compute the total price of this order.',
        'ORDER apple qty=3',
        'ORDER pear qty=2',
        'ORDER plum qty=5',
        'PRICE apple=1.25',
        'PRICE pear=2.10',
        'PRICE plum=0.45',
      ].join('\n'),
    );
    // kiwi is in the catalog but not ordered: a complete brief does not carry it.
    expect(full.messages[1]!.content).not.to.include('kiwi');
  });

  it('brief_handoff gives the order lines only, so the agent must look every price up', async () => {
    const brief = task(fruit, 'brief_handoff');
    expect(brief.messages[1]!.content).to.equal(
      ['Compute the total price of this order.', 'ORDER apple qty=3', 'ORDER pear qty=2', 'ORDER plum qty=5'].join('\n'),
    );
    const run = await agentJob(fruit, 'brief_handoff', inProcess(smokePlayer, 0.5));
    expect(run.toolCalls).to.deep.equal(['lookup', 'lookup', 'lookup', 'write_answer']);
    const full = await agentJob(fruit, 'full_handoff', inProcess(smokePlayer, 0.5));
    expect(full.toolCalls).to.deep.equal(['write_answer']);
  });
});

describe('smoke agentTask: played as the worker, graded as the worker', () => {
  it('with the same draw, every case and arm saves the same total as the built-in worker and grades the same', async () => {
    for (const draw of [0.5, 0.1]) {
      for (const c of cases) {
        for (const arm of ARMS) {
          const complete = inProcess(smokePlayer, draw);
          const agent = await agentJob(c, arm, complete);
          const builtIn = await builtInJob(s.agent, c, arm, config, complete);
          const where = `${c.id} ${arm} draw ${draw}`;
          expect(agent.revisions, where).to.deep.equal(builtIn.revisions);
          expect(agent.answer, where).to.equal(`DONE ${agent.revisions.at(-1)}`);
          expect(grade(c, agent.revisions, agent.answer), where).to.deep.equal(grade(c, builtIn.revisions, builtIn.answer));
          // 0.5 is past the careless rate: the right total, every check passes; 0.1 forgets the quantities.
          expect(agent.revisions.at(-1), where).to.equal(draw === 0.5 ? expectedTotal(c.data) : carelessTotal(c.data));
          if (draw === 0.5)
            expect(
              grade(c, agent.revisions, agent.answer).checks.every((x) => x.passed),
              where,
            ).to.equal(true);
        }
      }
    }
  });

  it('an unrecognised request is not the worker: the scripted model answers it with a labelled text, and the agent ends with nothing saved', async () => {
    const c = cases[0]!;
    const untagged = task(c, 'full_handoff');
    untagged.messages[0] = { role: 'system', content: 'You are a helpful assistant.' };
    const run = await toolLoop(c, untagged, inProcess(smokePlayer, 0.5), s.agent.runTool);
    expect(run.toolCalls).to.deep.equal([]);
    expect(run.answer).to.match(/^Scripted reply \(seed 0\)/);
    expect(grade(c, run.revisions, run.answer).checks.find((x) => x.checkId === 'answer_saved')?.passed).to.equal(false);
  });
});

describe('smoke agentTask: over HTTP, as an example agent runs it', function () {
  this.timeout(60_000);
  let model: ScriptedModel;
  before(async () => {
    model = await startScriptedModel({ players: [smokePlayer], seed: 7 });
  });
  after(() => model.close());

  for (const dialect of ['plain', 'rich'] as const) {
    it(`through the real openai client (${dialect} requests), every job saves a total with two decimals and ends with a short reply; the right totals pass`, async () => {
      const client = new OpenAI({ baseURL: model.url, apiKey: 'per-job-token', maxRetries: 0 });
      let passed = 0;
      for (const c of cases) {
        for (const arm of ARMS) {
          const run = await agentJob(c, arm, overHttp(client, dialect));
          const where = `${c.id} ${arm}`;
          const total = run.revisions.at(-1);
          // The careless rate keeps rows realistic: a total is right, or the quantities were forgotten.
          expect([expectedTotal(c.data), carelessTotal(c.data)], where).to.include(total);
          expect(run.answer, where).to.equal(`DONE ${total}`);
          const checks = grade(c, run.revisions, run.answer).checks;
          expect(checks.find((x) => x.checkId === 'two_decimals')?.passed, where).to.equal(true);
          if (checks.every((x) => x.passed)) passed += 1;
        }
      }
      expect(passed).to.be.greaterThan(0);
      expect(model.stats().byStatus).to.have.keys(['200']);
    });
  }
});

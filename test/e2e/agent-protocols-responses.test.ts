// External agents that speak OpenAI Responses (`POST …/v1/responses`) end to end: the example agents
// built on @openai/agents (its defaults) and on the AI SDK (`openai(model)`), plain and streamed,
// with their tools over MCP, run smoke through evalog's recording proxy on the scripted model (a
// server process of its own); replay passes, and an edited log is reported as a divergence.
import { expect } from 'chai';
import { runEvalogHere } from '../support/cli.js';
import { type MockServerProcess, startMockServer } from '../support/mock-server.js';
import {
  editedCopy,
  editReceivedBody,
  editTranslatedMessage,
  type Example,
  expectSmokeRun,
  expectStops,
  type ProtocolFixture,
  protocolFixture,
  smokeName,
} from './agent-protocols-shared.js';

describe('agent protocols: OpenAI Responses agents through the recording proxy (e2e)', function () {
  this.timeout(240_000);
  let fx: ProtocolFixture;
  before(async () => {
    fx = await protocolFixture('evalog-responses-');
  });
  let faulty: MockServerProcess | undefined;
  after(async () => {
    await faulty?.stop();
    await fx?.close();
  });

  const agents: Example[] = ['openai-agents-sdk', 'ai-sdk-responses'];
  for (const agent of agents) {
    for (const stream of [false, true]) {
      it(`${agent}${stream ? ' --stream' : ''}: smoke's 4 jobs (2 cases × 2 arms) answered over /v1/responses with MCP tools and usage, calls as the chat agent's`, async () => {
        await expectSmokeRun(fx, agent, stream);
      });
    }
  }

  for (const [agent, stream] of [
    ['openai-agents-sdk', true],
    ['ai-sdk-responses', false],
  ] as [Example, boolean][]) {
    it(`${agent}${stream ? ' --stream' : ''}: a used-up token budget (403) ends the agent with exit 0, an upstream failure (502) with exit 1`, async () => {
      faulty ??= await startMockServer(['--fault', 'server_error'], fx.dir);
      await expectStops(fx, faulty, agent, stream);
    });
  }

  it('evalog replay of a Responses agent run (streamed) re-runs the agent against its record, sends nothing upstream, and passes', async () => {
    const name = smokeName('ai-sdk-responses', true);
    expect((await fx.smokeRun('ai-sdk-responses', true)).code).to.equal(0);
    const before = (await fx.server.stats()).requests;
    const replay = await runEvalogHere(['replay', `runs/${name}`], { cwd: fx.dir, env: fx.env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(0);
    expect(replay.stdout).to.match(/every event matches \(4 jobs\)/);
    expect((await fx.server.stats()).requests - before, 'requests replay sent upstream').to.equal(0);
  });

  it('replay of a log whose translated request was edited reports a divergence at that message (exit 1)', async () => {
    const name = smokeName('openai-agents-sdk', false);
    expect((await fx.smokeRun('openai-agents-sdk', false)).code).to.equal(0);
    const { edit, job } = editTranslatedMessage();
    const copy = await editedCopy(fx.dir, name, 'translated', edit);
    const replay = await runEvalogHere(['replay', copy], { cwd: fx.dir, env: fx.env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(1);
    expect(replay.stdout).to.match(new RegExp(`^divergence at seq \\d+ .*job ${job()}:$`, 'm'));
    expect(replay.stdout).to.match(/the agent's request \d+ \(model\) differs from the record at messages\[\d+\]/);
  });

  it('replay of a log whose received Responses body was edited (same translation) reports received.body (exit 1)', async () => {
    const name = smokeName('openai-agents-sdk', false);
    expect((await fx.smokeRun('openai-agents-sdk', false)).code).to.equal(0);
    const { edit, job } = editReceivedBody();
    const copy = await editedCopy(fx.dir, name, 'received', edit);
    const replay = await runEvalogHere(['replay', copy], { cwd: fx.dir, env: fx.env });
    expect(replay.code, replay.stdout + replay.stderr).to.equal(1);
    expect(replay.stdout).to.match(new RegExp(`^divergence at seq \\d+ .*job ${job()}:$`, 'm'));
    expect(replay.stdout).to.match(/differs from the record at received\.body/);
  });
});

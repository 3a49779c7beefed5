// The gateway's Anthropic Messages routes as the real @anthropic-ai/sdk reaches them, at
// ANTHROPIC_BASE_URL with the token as x-api-key: messages.create plain and streamed (the
// translation itself is protocol-messages*'s), count_tokens answered without a model call, and
// every error, the gateway's own included, in Anthropic's shape.
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { generateText } from 'ai';
import { expect } from 'chai';
import { startAgentGateway } from '../../src/harness/external/gateway.js';
import type { AgentEndpoints, AgentGateway, AgentJobHandlers, AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

const TOOL = { name: 'lookup', description: 'Looks a fruit up.', input_schema: { type: 'object' as const, properties: { item: { type: 'string' } } } };

function scriptedJob(script?: (n: number) => AgentModelReply) {
  const requests: AgentModelRequest[] = [];
  const handlers: AgentJobHandlers = {
    model: async (r) => {
      requests.push(r);
      const n = requests.length;
      if (script) return script(n);
      const id = `chatcmpl-evalog-agent-call-${n}-attempt-1`;
      if (n === 1) {
        const toolCalls = [{ id: 'toolu_1', name: 'lookup', arguments: '{"item":"fig"}' }];
        return { ok: true, id, model: 'run-model', content: null, toolCalls, finishReason: 'tool_calls', usage: { prompt: 10, completion: 5, total: 15 } };
      }
      return { ok: true, id, model: 'run-model', content: 'figs: 3', toolCalls: [], finishReason: 'stop', usage: { prompt: 20, completion: 3, total: 23 } };
    },
    tools: () => [],
    callTool: async () => ({ result: '', isError: false }),
  };
  return { handlers, requests };
}

const clientOf = (job: AgentEndpoints, apiKey = job.token) => new Anthropic({ baseURL: job.anthropicBaseUrl, apiKey, maxRetries: 0, logLevel: 'off' });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );

describe('agent gateway: Anthropic Messages', () => {
  let gateway: AgentGateway;
  const open: AgentEndpoints[] = [];
  const register = (handlers: AgentJobHandlers) => {
    const job = gateway.register(handlers);
    open.push(job);
    return job;
  };
  before(async () => {
    gateway = await startAgentGateway();
  });
  after(() => gateway.close());
  afterEach(() => {
    for (const job of open.splice(0)) job.close();
  });

  it('messages.create with a tool, then its tool_result, plain and streamed, at ANTHROPIC_BASE_URL with x-api-key', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    const client = clientOf(job);
    const first = await client.messages.create({
      model: 'scripted',
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'how many figs?' }],
      tools: [TOOL],
    });
    expect(first.stop_reason).to.equal('tool_use');
    expect(first.content).to.deep.equal([{ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { item: 'fig' } }]);
    expect(requests[0]).to.deep.include({ protocol: 'messages', stream: false });
    expect(requests[0]!.messages[0]).to.deep.equal({ role: 'system', content: 'Be brief.' });
    expect(requests[0]!.tools.map((t) => t.name)).to.deep.equal(['lookup']);
    const final = await client.messages
      .stream({
        model: 'scripted',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'how many figs?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'fig: 3' }] },
        ],
        tools: [TOOL],
      })
      .finalMessage();
    expect(final.content.map((b) => (b.type === 'text' ? b.text : b.type))).to.deep.equal(['figs: 3']);
    expect(final.stop_reason).to.equal('end_turn');
    expect(requests[1]!.stream).to.equal(true);
    expect(requests[1]!.messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'tool']);
  });

  it("takes the AI SDK's anthropic(model) at the job root as given (it appends /messages only), and Claude Code's ?beta=true", async () => {
    const { handlers, requests } = scriptedJob((n) => ({
      ok: true,
      id: `chatcmpl-evalog-agent-call-${n}-attempt-1`,
      model: 'run-model',
      content: 'hi',
      toolCalls: [],
      finishReason: 'stop',
      usage: null,
    }));
    const job = register(handlers);
    const anthropic = createAnthropic({ baseURL: job.anthropicBaseUrl, apiKey: job.token });
    expect((await generateText({ model: anthropic('scripted'), prompt: 'say hi', maxRetries: 0 })).text).to.equal('hi');
    const beta = await fetch(`${job.anthropicBaseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'x-api-key': job.token, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'scripted', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(beta.status).to.equal(200);
    expect(requests.map((r) => r.protocol)).to.deep.equal(['messages', 'messages']);
  });

  it('count_tokens answers at once with an estimate, asking the job nothing', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    const counted = await clientOf(job).messages.countTokens({ model: 'scripted', messages: [{ role: 'user', content: 'how many figs?' }], tools: [TOOL] });
    expect(counted.input_tokens).to.be.a('number').and.be.above(0);
    expect(requests).to.deep.equal([]);
    const get = await fetch(`${job.anthropicBaseUrl}/v1/messages/count_tokens`, { headers: { 'x-api-key': job.token } });
    expect(get.status).to.equal(405);
  });

  it("answers every error in Anthropic's shape: a wrong key, a refused block, a job's failure, an unknown route", async () => {
    const { handlers, requests } = scriptedJob(() => ({
      ok: false,
      status: 403,
      code: 'budget_exhausted',
      message: "evalog: the job's model_calls budget (1) is used up",
    }));
    const job = register(handlers);
    const ask = { model: 'scripted', max_tokens: 10, messages: [{ role: 'user' as const, content: 'x' }] };
    const wrong = await failure(clientOf(job, `${job.token}x`).messages.create(ask));
    expect(wrong).to.be.instanceOf(APIError).and.include({ status: 401 });
    expect((wrong as APIError).error).to.deep.equal({
      type: 'error',
      error: {
        type: 'authentication_error',
        message: "missing or wrong token: send this job's ANTHROPIC_API_KEY as 'x-api-key: <token>' (or 'Authorization: Bearer <token>')",
      },
    });
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' } };
    const refused = await failure(clientOf(job).messages.create({ ...ask, messages: [{ role: 'user', content: [image] }] }));
    expect(refused).to.be.instanceOf(APIError).and.include({ status: 400 });
    expect((refused as APIError & { error: { error: { type: string; message: string } } }).error.error.type).to.equal('invalid_request_error');
    expect((refused as APIError & { error: { error: { message: string } } }).error.error.message).to.match(/^messages\[0\]\.content\[0\]\.type: /);
    expect(requests).to.deep.equal([]);
    const budget = await failure(clientOf(job).messages.create(ask));
    expect(budget).to.be.instanceOf(APIError).and.include({ status: 403 });
    expect((budget as APIError & { error: { type: string } }).error.type).to.equal('error');
    const unknown = await fetch(`${job.anthropicBaseUrl}/v1/messages/batches`, { method: 'POST', headers: { 'x-api-key': job.token } });
    expect(unknown.status).to.equal(404);
    expect(((await unknown.json()) as { type: string }).type).to.equal('error');
    // The Bearer form works too (Claude Code with ANTHROPIC_AUTH_TOKEN sends it).
    const bearer = await fetch(`${job.anthropicBaseUrl}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(bearer.status).to.equal(200);
  });
});

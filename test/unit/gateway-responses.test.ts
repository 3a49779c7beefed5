// The gateway's Responses route as the real clients reach it: the `openai` client's
// responses.create (plain and streamed, with function tools, a function_call_output follow-up and
// previous_response_id), the OpenAI Agents SDK with its defaults and the AI SDK's openai(model),
// against stand-in job handlers that answer from a script and keep the chat requests they get.
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool as aiTool } from 'ai';
import { expect } from 'chai';
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { startAgentGateway } from '../../src/harness/external/gateway.js';
import type { AgentEndpoints, AgentGateway, AgentJobHandlers, AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

const TOOL = {
  type: 'function' as const,
  name: 'lookup',
  description: 'Looks a fruit up.',
  parameters: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'], additionalProperties: false },
  strict: true,
};

/** Odd calls ask for the lookup tool, even calls answer; the ids are those the recorder would give. */
function scriptedJob(script?: (n: number) => AgentModelReply) {
  const requests: AgentModelRequest[] = [];
  const handlers: AgentJobHandlers = {
    model: async (r) => {
      requests.push(r);
      const n = requests.length;
      if (script) return script(n);
      const id = `chatcmpl-evalog-agent-call-${n}-attempt-1`;
      if (n % 2 === 1) {
        const toolCalls = [{ id: `call_${n}`, name: 'lookup', arguments: '{"item":"fig"}' }];
        return { ok: true, id, model: 'run-model', content: null, toolCalls, finishReason: 'tool_calls', usage: { prompt: 10, completion: 5, total: 15 } };
      }
      return {
        ok: true,
        id,
        model: 'run-model',
        content: 'figs: 3',
        toolCalls: [],
        finishReason: 'stop',
        usage: { prompt: 20, completion: 3, total: 23, cached: 4 },
      };
    },
    tools: () => [],
    callTool: async () => ({ result: '', isError: false }),
  };
  return { handlers, requests };
}

const clientOf = (job: AgentEndpoints, baseURL = job.baseUrl) => new OpenAI({ baseURL, apiKey: job.token, maxRetries: 0, logLevel: 'off' });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );
const text = (r: AgentModelRequest) =>
  r.messages.map((m) => `${m.role}:${m.content ?? ''}${'tool_calls' in m && m.tool_calls ? `+${m.tool_calls.length}calls` : ''}`);

describe('agent gateway: OpenAI Responses', () => {
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

  it('responses.create with function tools, then a function_call_output follow-up by previous_response_id, plain and streamed', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    const client = clientOf(job);
    const first = await client.responses.create({ model: 'scripted', instructions: 'Be brief.', input: 'how many figs?', tools: [TOOL] });
    expect(first.id).to.equal('resp_evalog_agent-call-1-attempt-1');
    expect(first.status).to.equal('completed');
    const [call] = first.output;
    expect(call).to.deep.include({ type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"item":"fig"}' });
    expect(first.usage).to.deep.equal({ input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    expect(requests[0]).to.deep.include({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'how many figs?' },
      ],
      protocol: 'responses',
      stream: false,
    });
    expect(requests[0]!.tools.map((t) => t.name)).to.deep.equal(['lookup']);

    const output = { type: 'function_call_output' as const, call_id: 'call_1', output: 'fig: 3' };
    const stream = await client.responses.create({ model: 'scripted', previous_response_id: first.id, input: [output], tools: [TOOL], stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(types[0]).to.equal('response.created');
    expect(types).to.include('response.output_text.delta');
    expect(completed?.output[0]).to.deep.include({ type: 'message', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'figs: 3' }] });
    expect(completed?.usage).to.deep.equal({ input_tokens: 20, input_tokens_details: { cached_tokens: 4 }, output_tokens: 3, total_tokens: 23 });
    // The earlier response's conversation, without its instructions (this request has none), then the output.
    expect(text(requests[1]!)).to.deep.equal(['user:how many figs?', 'assistant:+1calls', 'tool:fig: 3']);
    expect(requests[1]!.stream).to.equal(true);

    // The stream helper assembles the same events into the final response.
    const helper = client.responses.stream({ model: 'scripted', input: [{ role: 'user', content: 'again' }], tools: [TOOL] });
    const final = await helper.finalResponse();
    expect(final.output[0]).to.deep.include({ type: 'function_call', call_id: 'call_3' });
  });

  it('refuses an unknown previous_response_id and a hosted tool with a 400 naming the field, without asking the job', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    const client = clientOf(job);
    const unknown = await failure(client.responses.create({ model: 'scripted', previous_response_id: 'resp_nowhere', input: 'x' }));
    expect(unknown).to.be.instanceOf(APIError).and.include({ status: 400, code: 'previous_response_not_found', param: 'previous_response_id' });
    const hosted = await failure(client.responses.create({ model: 'scripted', input: 'x', tools: [{ type: 'web_search' }] }));
    expect(hosted).to.be.instanceOf(APIError).and.include({ status: 400, code: 'unsupported_value', param: 'tools[0].type' });
    expect((hosted as APIError).message).to.include('"web_search" is not a function tool');
    expect(requests).to.deep.equal([]);
  });

  it("remembers per job: another job's response id is unknown", async () => {
    const a = scriptedJob();
    const b = scriptedJob();
    const jobA = register(a.handlers);
    const jobB = register(b.handlers);
    const first = await clientOf(jobA).responses.create({ model: 'scripted', input: 'x', tools: [TOOL] });
    const err = await failure(clientOf(jobB).responses.create({ model: 'scripted', previous_response_id: first.id, input: 'y' }));
    expect(err).to.be.instanceOf(APIError).and.include({ status: 400, code: 'previous_response_not_found' });
    expect(b.requests).to.deep.equal([]);
  });

  it("answers a job's error reply with its status in OpenAI's shape, streamed request or not", async () => {
    const { handlers } = scriptedJob(() => ({
      ok: false,
      status: 403,
      code: 'budget_exhausted',
      message: "evalog: the job's model_calls budget (1) is used up",
    }));
    const job = register(handlers);
    for (const stream of [false, true]) {
      const err = await failure(clientOf(job).responses.create({ model: 'scripted', input: 'x', stream }));
      expect(err, String(stream)).to.be.instanceOf(APIError).and.include({ status: 403, code: 'budget_exhausted', type: 'evalog_error' });
    }
  });

  it('attributes by the per-attribution URL, and takes the token as x-api-key too; a wrong one is a 401 in OpenAI’s shape', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    await clientOf(job, job.attributionUrl('child')).responses.create({ model: 'scripted', input: 'x' });
    expect(requests[0]!.attribution).to.equal('child');
    const post = (headers: Record<string, string>) =>
      fetch(`${job.baseUrl}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ input: 'y' }) });
    expect((await post({ 'x-api-key': job.token })).status).to.equal(200);
    const wrong = await post({ 'x-api-key': `${job.token}x` });
    expect(wrong.status).to.equal(401);
    expect(await wrong.json()).to.deep.include({
      error: {
        message: "missing or wrong token: send this job's OPENAI_API_KEY as 'Authorization: Bearer <token>'",
        type: 'invalid_request_error',
        code: 'invalid_api_key',
        param: null,
      },
    });
    const notJson = await post({ authorization: `Bearer ${job.token}` }).then(() =>
      fetch(`${job.baseUrl}/responses`, { method: 'POST', headers: { authorization: `Bearer ${job.token}` }, body: '{' }),
    );
    expect(notJson.status).to.equal(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).to.equal('invalid_request');
    expect((await fetch(`${job.baseUrl}/responses`, { headers: { authorization: `Bearer ${job.token}` } })).status).to.equal(405);
    expect(requests).to.have.length(3);
  });

  it('the OpenAI Agents SDK with its defaults (Responses), a function tool, plain and streamed', async () => {
    const { handlers, requests } = scriptedJob();
    const job = register(handlers);
    // Tracing would export to OpenAI's servers; the provider is the SDK's own, with its default (Responses) API.
    setTracingDisabled(true);
    const runner = new Runner({ modelProvider: new OpenAIProvider({ apiKey: job.token, baseURL: job.baseUrl }) });
    const lookup = tool({
      name: 'lookup',
      description: 'Looks a fruit up.',
      parameters: z.object({ item: z.string() }),
      execute: async ({ item }) => `${item}: 3`,
    });
    const agent = new Agent({ name: 'fruit', instructions: 'Be brief.', model: 'scripted', tools: [lookup] });
    expect((await runner.run(agent, 'how many figs?')).finalOutput).to.equal('figs: 3');
    const streamed = await runner.run(agent, 'how many figs?', { stream: true });
    for await (const _ of streamed) {
      // drained: the run completes once its events are read
    }
    await streamed.completed;
    expect(streamed.finalOutput).to.equal('figs: 3');
    expect(requests.map((r) => [r.protocol, r.stream])).to.deep.equal([
      ['responses', false],
      ['responses', false],
      ['responses', true],
      ['responses', true],
    ]);
    // The tool's result comes back as a tool message after the assistant's call, as a chat agent's would.
    expect(text(requests[3]!)).to.deep.equal(['system:Be brief.', 'user:how many figs?', 'assistant:+1calls', 'tool:fig: 3']);
  });

  it("the AI SDK's openai(model) (Responses, store on: earlier items by reference), generateText with a tool", async () => {
    const { handlers, requests } = scriptedJob((n) =>
      n === 1
        ? {
            ok: true,
            id: 'chatcmpl-evalog-agent-call-1-attempt-1',
            model: 'run-model',
            content: 'looking',
            toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"item":"fig"}' }],
            finishReason: 'tool_calls',
            usage: null,
          }
        : { ok: true, id: 'chatcmpl-evalog-agent-call-2-attempt-1', model: 'run-model', content: 'figs: 3', toolCalls: [], finishReason: 'stop', usage: null },
    );
    const job = register(handlers);
    const openai = createOpenAI({ baseURL: job.baseUrl, apiKey: job.token });
    const lookup = aiTool({ description: 'Looks a fruit up.', inputSchema: z.object({ item: z.string() }), execute: async ({ item }) => `${item}: 3` });
    const result = await generateText({
      model: openai('scripted'),
      system: 'Be brief.',
      prompt: 'how many figs?',
      tools: { lookup },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(result.text).to.equal('figs: 3');
    const second = requests[1]!;
    expect((second.received!.input as { type?: string }[]).map((i) => i.type)).to.include('item_reference');
    expect(second.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'how many figs?' },
      { role: 'assistant', content: 'looking', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"item":"fig"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'fig: 3' },
    ]);
  });
});

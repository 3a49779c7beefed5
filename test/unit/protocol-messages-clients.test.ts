// The Messages adapter against the real clients: a tiny loopback server parses what
// @anthropic-ai/sdk and @ai-sdk/anthropic send with the adapter and answers with its rendering of
// a set reply. The plain message, the SDK's accumulated stream and the AI SDK's reading must agree
// on every field; a tool loop's follow-up must reach chat completions with the model's arguments;
// errors must arrive as the SDK's typed errors, and the ones not worth retrying not be retried.
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { conversationMemory } from '../../src/harness/external/protocols/index.js';
import { countTokensAnswer, messagesAdapter } from '../../src/harness/external/protocols/messages.js';
import type { AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

/** The server's state: the reply to answer with, and the requests the adapter parsed. */
const state: { reply: AgentModelReply; requests: AgentModelRequest[]; hits: number } = { reply: null as never, requests: [], hits: 0 };

function serve(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.hits += 1;
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      let answer = path === '/v1/messages/count_tokens' ? countTokensAnswer(body) : null;
      if (!answer) {
        const request = messagesAdapter.parse(body, 'main', conversationMemory());
        if ('refused' in request) answer = messagesAdapter.error(request.status, request.code, request.message, request.field);
        else {
          state.requests.push(request);
          answer = state.reply.ok ? messagesAdapter.render(state.reply, request) : messagesAdapter.failure(state.reply);
        }
      }
      res.writeHead(answer.status, { 'content-type': answer.contentType, ...answer.headers });
      res.end(answer.body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const REPLY: AgentModelReply = {
  ok: true,
  id: 'chatcmpl-evalog-agent-call-0-attempt-1',
  model: 'run-model',
  content: 'Let me look.',
  toolCalls: [
    { id: 'call_a', name: 'lookup', arguments: '{"item":"fig","qty":2}' },
    { id: 'call_b', name: 'lookup', arguments: '' },
  ],
  finishReason: 'tool_calls',
  usage: { prompt: 40, completion: 12, total: 52, cached: 8 },
};
const SCHEMA = { type: 'object', properties: { item: { type: 'string' }, qty: { type: 'number' } } } as const;
const TOOLS = [{ name: 'lookup', description: 'Looks up a fruit.', input_schema: SCHEMA }];
const ASK = { model: 'claude-x', max_tokens: 256, system: 'Be brief.', messages: [{ role: 'user' as const, content: 'figs?' }], tools: TOOLS };

describe('messages adapter with the real clients', () => {
  let server: Server;
  let url: string;
  let client: Anthropic;

  before(async () => {
    server = await serve();
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = new Anthropic({ baseURL: url, apiKey: 'job-token', maxRetries: 0 });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    state.reply = REPLY;
    state.requests = [];
    state.hits = 0;
  });

  const expected = {
    id: 'msg_evalog_agent-call-0-attempt-1',
    type: 'message',
    role: 'assistant',
    model: 'run-model',
    content: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'call_a', name: 'lookup', input: { item: 'fig', qty: 2 } },
      { type: 'tool_use', id: 'call_b', name: 'lookup', input: {} },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 32, cache_creation_input_tokens: null, cache_read_input_tokens: 8, output_tokens: 12 },
  };

  it('messages.create: the SDK reads the message; the request reached chat completions translated', async () => {
    const message = await client.messages.create(ASK);
    expect(message).to.deep.equal(expected);
    expect(state.requests).to.have.length(1);
    expect(state.requests[0]).to.deep.include({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'figs?' },
      ],
      tools: [{ name: 'lookup', description: 'Looks up a fruit.', parameters: SCHEMA }],
      params: { max_tokens: 256 },
      stream: false,
      protocol: 'messages',
    });
  });

  it('messages.stream().finalMessage() accumulates the same message; create({stream:true}) yields the events in order', async () => {
    // `parsed_output` is the SDK's own (structured output parsing), not on the wire.
    const { parsed_output: parsed, ...final } = await client.messages.stream(ASK).finalMessage();
    expect(parsed).to.equal(null);
    expect(JSON.parse(JSON.stringify(final))).to.deep.equal(expected);
    expect(state.requests[0]?.stream).to.equal(true);
    const types: string[] = [];
    for await (const event of await client.messages.create({ ...ASK, stream: true })) types.push(event.type);
    expect(types).to.deep.equal([
      'message_start',
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      ...['content_block_start', 'content_block_delta', 'content_block_stop'],
      ...['content_block_start', 'content_block_stop'],
      'message_delta',
      'message_stop',
    ]);
  });

  it('a tool loop: the follow-up with the echoed content and tool results reaches chat with the model’s exact arguments', async () => {
    const first = await client.messages.stream(ASK).finalMessage();
    state.reply = { ...REPLY, content: 'figs: 3', toolCalls: [], finishReason: 'stop' };
    const second = await client.messages.create({
      ...ASK,
      messages: [
        ...ASK.messages,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: '3 coins' },
            { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: 'no item' }], is_error: true },
          ],
        },
      ],
    });
    expect(second.stop_reason).to.equal('end_turn');
    expect(second.content).to.deep.equal([{ type: 'text', text: 'figs: 3' }]);
    expect(state.requests[1]?.messages.slice(2)).to.deep.equal([
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"item":"fig","qty":2}' } },
          { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '3 coins' },
      { role: 'tool', tool_call_id: 'call_b', content: '[tool error] no item' },
    ]);
  });

  it('arguments that are not a JSON object reach the agent as their text, streamed or not', async () => {
    state.reply = { ...REPLY, content: null, toolCalls: [{ id: 'c', name: 'lookup', arguments: '{"item": fig' }] };
    const plain = await client.messages.create(ASK);
    const streamed = await client.messages.stream(ASK).finalMessage();
    expect(plain.content).to.deep.equal([{ type: 'tool_use', id: 'c', name: 'lookup', input: '{"item": fig' }]);
    expect(JSON.parse(JSON.stringify(streamed.content))).to.deep.equal(plain.content);
  });

  it('unknown usage: the SDK still reads the message (0 where a number is required), and the header says which', async () => {
    state.reply = { ...REPLY, usage: null };
    const { data, response } = await client.messages.create(ASK).withResponse();
    expect(data.usage).to.deep.equal({ input_tokens: 0, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 0 });
    expect(response.headers.get('x-evalog-usage-unknown')).to.equal('input_tokens,output_tokens');
  });

  it('a budget_exhausted reply is a PermissionDeniedError of type permission_error, not retried by a retrying client', async () => {
    state.reply = { ok: false, status: 403, code: 'budget_exhausted', message: "evalog: the job's tokens budget (100) is used up" };
    const err = await client.messages.create(ASK).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Anthropic.PermissionDeniedError);
    expect((err as APIError).type).to.equal('permission_error');
    expect((err as APIError).message).to.include('budget_exhausted');
  });

  for (const [status, code] of [
    [502, 'upstream_server_error'],
    [503, 'job_ended'],
  ] as const) {
    it(`a ${status} ${code} reply is an api_error that even a client with retries sends once`, async () => {
      state.reply = { ok: false, status, code, message: 'evalog: failed' };
      const retrying = new Anthropic({ baseURL: url, apiKey: 'job-token', maxRetries: 3 });
      const err = await retrying.messages
        .stream(ASK)
        .finalMessage()
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(err).to.be.instanceOf(APIError);
      expect(err).to.include({ status, type: 'api_error' });
      expect(state.hits).to.equal(1);
    });
  }

  it('a refused request is a BadRequestError naming the field', async () => {
    const err = await client.messages.create({ ...ASK, top_k: 3 } as never).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(Anthropic.BadRequestError);
    expect(err).to.include({ type: 'invalid_request_error', apiMessage: 'top_k: has no chat completions equivalent' });
  });

  it('messages.countTokens reads the estimate', async () => {
    const count = await client.messages.countTokens({ model: 'claude-x', messages: [{ role: 'user', content: 'hi' }] });
    expect(count).to.deep.equal({ input_tokens: Math.ceil('{"messages":[{"content":"hi","role":"user"}],"tools":[]}'.length / 4) });
  });

  describe('the AI SDK (@ai-sdk/anthropic)', () => {
    const model = () => createAnthropic({ baseURL: `${url}/v1`, apiKey: 'job-token' })('claude-x');
    const tools = { lookup: tool({ description: 'Looks up a fruit.', inputSchema: jsonSchema<{ item?: string; qty?: number }>(SCHEMA) }) };

    it('generateText and streamText read the same text, tool calls, finish and usage', async () => {
      const plain = await generateText({ model: model(), system: 'Be brief.', prompt: 'figs?', tools, maxRetries: 0, maxOutputTokens: 256 });
      const streamed = streamText({ model: model(), system: 'Be brief.', prompt: 'figs?', tools, maxRetries: 0, maxOutputTokens: 256 });
      for (const r of [
        plain,
        { text: await streamed.text, toolCalls: await streamed.toolCalls, finishReason: await streamed.finishReason, usage: await streamed.usage },
      ]) {
        expect(r.text).to.equal('Let me look.');
        expect(r.toolCalls.map((c) => [c.toolCallId, c.toolName, c.input])).to.deep.equal([
          ['call_a', 'lookup', { item: 'fig', qty: 2 }],
          ['call_b', 'lookup', {}],
        ]);
        expect(r.finishReason).to.equal('tool-calls');
        expect(r.usage).to.deep.include({ inputTokens: 40, outputTokens: 12 });
      }
      expect(state.requests.map((q) => [q.stream, q.params.max_tokens])).to.deep.equal([
        [false, 256],
        [true, 256],
      ]);
    });
  });
});

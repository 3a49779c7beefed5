// The pure and HTTP parts of pass-through upstream (`--endpoint-protocols`): reading Responses and
// Messages answers (JSON and SSE) into the run's fields, the flag, the attempt sent to a real
// loopback endpoint (key in the protocol's header, body bytes unchanged), the gateway passing a
// request through and its answer back, and the scripted model answering both protocols.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseEndpointProtocols, resolveEndpoint } from '../../src/cli/endpoint.js';
import { InputError } from '../../src/cli/io.js';
import { preflightEndpoint } from '../../src/cli/preflight.js';
import { modelInfo } from '../../src/harness/endpoint/endpoint.js';
import { startAgentGateway } from '../../src/harness/external/gateway.js';
import { forwardedHeaders, passThroughRequest } from '../../src/harness/external/pass-through.js';
import { scriptedProtocols } from '../../src/harness/external/protocols/index.js';
import type { AgentJobHandlers, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';
import { callNative } from '../../src/providers/native-caller.js';
import { readNativeAnswer, sseEvents } from '../../src/providers/native-answer.js';
import { startScriptedModel } from '../../src/providers/scripted/index.js';

const sse = (events: { event: string; data: unknown }[]) => events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

describe('pass-through: reading answers', () => {
  const response = {
    id: 'resp_1',
    object: 'response',
    model: 'gpt-x',
    status: 'completed',
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'Looking ' },
          { type: 'output_text', text: 'it up.' },
        ],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'lookup', arguments: '{"item":"fig"}' },
    ],
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 40 },
      output_tokens: 30,
      output_tokens_details: { reasoning_tokens: 12 },
      total_tokens: 130,
    },
  };

  it('Responses JSON: text, function calls, tool_calls finish, usage with cached and reasoning tokens, the raw usage kept', () => {
    const read = readNativeAnswer('responses', 'application/json', JSON.stringify(response), 7);
    expect(read).to.deep.equal({
      ok: true,
      data: {
        content: 'Looking it up.',
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"item":"fig"}' }],
        finishReason: 'tool_calls',
        usage: { prompt: 100, completion: 30, total: 130, cached: 40, reasoning: 12 },
        latencyMs: 7,
        responseModel: 'gpt-x',
        reportedUsage: response.usage,
      },
    });
  });

  it('Responses SSE: read from response.completed; an incomplete response at max_output_tokens is `length`; no usage is null, not zero', () => {
    const stream = sse([
      { event: 'response.created', data: { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } } },
      { event: 'response.output_text.delta', data: { type: 'response.output_text.delta', delta: 'x' } },
      { event: 'response.completed', data: { type: 'response.completed', response } },
    ]);
    const read = readNativeAnswer('responses', 'text/event-stream; charset=utf-8', stream, 1);
    expect(read.ok && read.data.content).to.equal('Looking it up.');
    const cut = { ...response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [response.output[1]], usage: undefined };
    const incomplete = readNativeAnswer(
      'responses',
      'text/event-stream',
      sse([{ event: 'response.incomplete', data: { type: 'response.incomplete', response: cut } }]),
      1,
    );
    expect(incomplete.ok && [incomplete.data.finishReason, incomplete.data.usage]).to.deep.equal(['length', null]);
    const broken = readNativeAnswer('responses', 'text/event-stream', sse([{ event: 'response.created', data: { type: 'response.created' } }]), 1);
    expect(broken).to.deep.equal({ ok: false, message: 'the Responses stream has no response.completed event' });
    const failed = readNativeAnswer(
      'responses',
      'text/event-stream',
      sse([{ event: 'response.failed', data: { type: 'response.failed', response: { error: 'x' } } }]),
      1,
    );
    expect(failed.ok).to.equal(false);
  });

  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { item: 'fig' } },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 10, cache_read_input_tokens: 50, cache_creation_input_tokens: 5, output_tokens: 20 },
  };

  it('Messages JSON: prompt is input + cache reads + cache writes, cached the reads, stop reasons under chat names', () => {
    const read = readNativeAnswer('messages', 'application/json', JSON.stringify(message), 3);
    expect(read).to.deep.equal({
      ok: true,
      data: {
        content: 'Checking.',
        toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: '{"item":"fig"}' }],
        finishReason: 'tool_calls',
        usage: { prompt: 65, completion: 20, total: 85, cached: 50 },
        latencyMs: 3,
        responseModel: 'claude-x',
        reportedUsage: message.usage,
      },
    });
    const stops = ['end_turn', 'max_tokens', 'stop_sequence', 'pause_turn'].map((stop_reason) => {
      const r = readNativeAnswer('messages', 'application/json', JSON.stringify({ ...message, stop_reason }), 0);
      return r.ok ? r.data.finishReason : null;
    });
    expect(stops).to.deep.equal(['stop', 'length', 'stop', 'pause_turn']);
  });

  it('Messages SSE: blocks and deltas rebuilt (tool input as streamed), usage of message_start merged with message_delta', () => {
    const stream = sse([
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 10, cache_read_input_tokens: 50, output_tokens: 1 } },
        },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Check' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ing.' } } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'content_block_start',
        data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} } },
      },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"item":' } } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"fig"}' } } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 20 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    const read = readNativeAnswer('messages', 'text/event-stream', stream, 0);
    expect(read.ok && read.data).to.deep.include({
      content: 'Checking.',
      toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: '{"item":"fig"}' }],
      finishReason: 'tool_calls',
      usage: { prompt: 60, completion: 20, total: 80, cached: 50 },
    });
    const cut = readNativeAnswer('messages', 'text/event-stream', stream.slice(0, stream.indexOf('event: message_stop')), 0);
    expect(cut).to.deep.equal({ ok: false, message: 'the Messages stream has no message_start and message_stop' });
    const error = readNativeAnswer('messages', 'text/event-stream', sse([{ event: 'error', data: { type: 'error', error: { type: 'overloaded_error' } } }]), 0);
    expect(error.ok).to.equal(false);
  });

  it('sseEvents: CRLF, several data lines, comments', () => {
    expect(sseEvents(': ping\r\n\r\nevent: a\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\n\n')).to.deep.equal([
      { event: 'a', data: '1\n2' },
      { event: null, data: '3' },
    ]);
  });
});

describe('pass-through: --endpoint-protocols', () => {
  const env = { EVALOG_BASE_URL: 'http://127.0.0.1:9/v1', EVALOG_MODEL: 'm', EVALOG_API_KEY: 'secret' };

  it('parses a list in a fixed order (chat accepted and implied), refuses anything else naming the flag', () => {
    expect(parseEndpointProtocols('run', 'messages, responses')).to.deep.equal(['responses', 'messages']);
    expect(parseEndpointProtocols('run', 'chat')).to.deep.equal([]);
    expect(() => parseEndpointProtocols('run', 'responses,gemini'))
      .to.throw(InputError)
      .with.property('message', 'evalog run: --endpoint-protocols takes a comma-separated list of chat, responses, messages (got "gemini")');
    expect(() => parseEndpointProtocols('resume', ' , ')).to.throw(InputError, /^evalog resume: --endpoint-protocols takes/);
  });

  it('is recorded in RunStarted only when set; the built-in scripted model refuses it', () => {
    const passing = resolveEndpoint('run', { 'endpoint-protocols': 'messages' }, env);
    expect(passing).to.deep.include({ scripted: false, protocols: ['messages'] });
    expect(modelInfo(passing)).to.deep.equal({
      name: 'm',
      scripted: false,
      baseUrlEnv: 'EVALOG_BASE_URL',
      apiKeyEnv: 'EVALOG_API_KEY',
      protocols: ['messages'],
    });
    expect(modelInfo(resolveEndpoint('run', {}, env))).to.not.have.property('protocols');
    expect(modelInfo(resolveEndpoint('run', { 'endpoint-protocols': 'chat' }, env))).to.not.have.property('protocols');
    expect(() => resolveEndpoint('run', { 'endpoint-protocols': 'responses' }, {})).to.throw(
      InputError,
      /--endpoint-protocols needs an endpoint \(--base-url\)/,
    );
  });
});

/** A loopback endpoint that keeps what each request sent and answers as `answer` says. */
async function endpoint(answer: (req: IncomingMessage) => { status: number; type: string; body: string; headers?: Record<string, string> }) {
  const seen: { path: string; headers: IncomingMessage['headers']; body: Buffer }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      const a = answer(req);
      res.writeHead(a.status, { 'content-type': a.type, ...a.headers });
      res.end(a.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('pass-through: the preflight of an endpoint said to speak Messages', () => {
  it('takes the key as x-api-key when Bearer is refused; an endpoint not said to speak Messages is refused as before', async () => {
    const ep = await endpoint((req) =>
      req.headers['x-api-key'] === 'k' ? { status: 200, type: 'application/json', body: '{"data":[]}' } : { status: 401, type: 'application/json', body: '{}' },
    );
    try {
      const base = { scripted: false as const, baseURL: ep.url, apiKey: 'k', model: 'm', baseUrlEnv: '--base-url', apiKeyEnv: 'K' };
      expect(await preflightEndpoint('run', { ...base, protocols: ['messages'] })).to.deep.equal({ ...base, protocols: ['messages'] });
      expect(ep.seen.map((s) => [s.headers.authorization ?? null, s.headers['x-api-key'] ?? null])).to.deep.equal([
        ['Bearer k', null],
        [null, 'k'],
      ]);
      let refused: unknown = null;
      await preflightEndpoint('run', base).catch((e: unknown) => (refused = e));
      expect(refused).to.be.instanceOf(InputError);
    } finally {
      await ep.close();
    }
  });
});

describe('pass-through: one attempt to a real endpoint', () => {
  const options = { signal: new AbortController().signal, timeoutMs: 5000, callKey: 'run/job/agent/call-1/attempt-1' };
  const now = () => 0;

  it("Messages: the body's bytes to {base}/messages, the run's key as x-api-key with the agent's anthropic-version, the SSE answer as received", async () => {
    const stream = sse([
      { event: 'message_start', data: { type: 'message_start', message: { id: 'm', model: 'c', content: [], usage: { input_tokens: 3, output_tokens: 0 } } } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
    const ep = await endpoint(() => ({ status: 200, type: 'text/event-stream', body: stream }));
    try {
      const body = Buffer.from('{"model":"c",  "stream":true,"messages":[]}');
      const r = await callNative(
        { baseURL: `${ep.url}/`, apiKey: 'real-key', now },
        { protocol: 'messages', body, headers: { 'anthropic-version': '2099-01-01' } },
        options,
      );
      expect(r.ok).to.equal(true);
      if (!r.ok) return;
      expect(r.answer.bytes.toString('utf8')).to.equal(stream);
      expect(r.answer.contentType).to.equal('text/event-stream');
      expect(r.data.usage).to.deep.equal({ prompt: 3, completion: 2, total: 5 });
      const [got] = ep.seen;
      expect(got!.path).to.equal('/v1/messages');
      expect(got!.body.equals(body), 'the bytes unchanged').to.equal(true);
      expect(got!.headers).to.deep.include({ 'x-api-key': 'real-key', 'anthropic-version': '2099-01-01', 'x-evalog-call': options.callKey });
      expect(got!.headers).to.not.have.property('authorization');
    } finally {
      await ep.close();
    }
  });

  it('Responses: Bearer with the key at {base}/responses; 429 with Retry-After, 500 and 400 are the recorded failure kinds', async () => {
    const statuses = [429, 500, 400];
    const ep = await endpoint(() => {
      const status = statuses.shift()!;
      const headers: Record<string, string> = status === 429 ? { 'retry-after': '2' } : {};
      return { status, type: 'application/json', body: `{"error":{"message":"no ${status}"}}`, headers };
    });
    try {
      const request = { protocol: 'responses' as const, body: Buffer.from('{}'), headers: {} };
      const kinds = [];
      for (let i = 0; i < 3; i++) {
        const r = await callNative({ baseURL: ep.url, apiKey: 'real-key', now }, request, options);
        kinds.push(r.ok ? 'ok' : [r.data.kind, r.data.status, r.data.retryable, r.data.retryAfterMs]);
      }
      expect(kinds).to.deep.equal([
        ['rate_limited', 429, true, 2000],
        ['server_error', 500, true, null],
        ['client_error', 400, false, null],
      ]);
      expect(ep.seen.map((s) => [s.path, s.headers.authorization])).to.deep.equal(Array(3).fill(['/v1/responses', 'Bearer real-key']));
      const dead = await callNative({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', now }, request, options);
      expect(!dead.ok && dead.data.kind).to.equal('connection');
    } finally {
      await ep.close();
    }
  });

  it('forwards only the protocol headers of the agent, never its token', () => {
    expect(
      forwardedHeaders({ authorization: 'Bearer job-token', 'x-api-key': 'job-token', 'anthropic-beta': 'b1', 'anthropic-version': 'v', host: 'h' }),
    ).to.deep.equal({
      'anthropic-version': 'v',
      'anthropic-beta': 'b1',
    });
  });
});

describe('pass-through: the gateway', () => {
  it("passes a Responses body through as received and answers with the job's answer bytes; a Messages route it was not told of still translates", async () => {
    const gateway = await startAgentGateway();
    const requests: AgentModelRequest[] = [];
    const answerText = '{ "id":"resp_x",  "output":[] }';
    const handlers: AgentJobHandlers = {
      model: async (r) => {
        requests.push(r);
        const native = r.native ? { native: { contentType: 'application/json; x=1', body: Buffer.from(answerText) } } : {};
        return { ok: true, id: 'c1', model: 'm', content: 'hi', toolCalls: [], finishReason: 'stop', usage: null, ...native };
      },
      tools: () => [],
      callTool: async () => ({ result: '', isError: false }),
    };
    const job = gateway.register(handlers, { passThrough: ['responses'] });
    try {
      const sent = '{"model":"m",   "input":"hi","tools":[{"type":"web_search"}]}';
      const res = await fetch(`${job.baseUrl}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${job.token}`, 'openai-beta': 'x' },
        body: sent,
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/json; x=1');
      expect(await res.text()).to.equal(answerText);
      // A hosted tool, which translation refuses, passes: the endpoint judges it.
      expect(Buffer.from(requests[0]!.native!.body).toString('utf8')).to.equal(sent);
      expect(requests[0]).to.deep.include({ protocol: 'responses', messages: [], tools: [], params: {}, stream: false });
      expect(requests[0]!.native!.headers).to.deep.equal({ 'openai-beta': 'x' });
      const translated = await fetch(`${job.anthropicBaseUrl}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': job.token },
        body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(translated.status).to.equal(200);
      expect(requests[1]!.native).to.equal(undefined);
      expect(requests[1]!.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
      const notObject = await fetch(`${job.baseUrl}/responses`, { method: 'POST', headers: { authorization: `Bearer ${job.token}` }, body: '[1]' });
      expect(notObject.status).to.equal(400);
      expect(requests).to.have.length(2);
    } finally {
      job.close();
      await gateway.close();
    }
  });

  it('passThroughRequest keeps the stream flag and the received body; a recorded body is the same request but for spacing and record-only fields', () => {
    const body = { stream: true, model: 'x', metadata: { user_id: 'session-1' }, messages: [] };
    const r = passThroughRequest('messages', body, Buffer.from(JSON.stringify(body)), 'query', {});
    expect(r).to.deep.include({ attribution: 'query', stream: true, protocol: 'messages', received: body });
    if ('refused' in r) throw new Error('refused');
    const same = r.native!.sameRequest!;
    expect(same(Buffer.from('{"messages":[], "model":"x","stream":true, "metadata":{"user_id":"session-2"}}')), 'a fresh session id').to.equal(true);
    expect(same(Buffer.from('{"messages":[],"model":"y","stream":true,"metadata":{"user_id":"session-1"}}')), 'another model').to.equal(false);
    expect(same(Buffer.from('not json')), 'no JSON').to.equal(false);
  });
});

describe('pass-through: the scripted model speaks Responses and Messages by the proxy adapters', () => {
  it('answers POST /v1/responses and /v1/messages (plain and streamed), counted per route with the bodies received', async () => {
    const model = await startScriptedModel({ protocols: scriptedProtocols() });
    try {
      const post = (path: string, body: unknown) => fetch(`${model.url}${path}`, { method: 'POST', body: JSON.stringify(body) });
      const r1 = await post('/responses', { model: 'x', input: 'Say hi.' });
      const body1 = (await r1.json()) as { object: string; output: unknown[]; usage: unknown };
      expect([r1.status, body1.object]).to.deep.equal([200, 'response']);
      const read = readNativeAnswer('responses', 'application/json', JSON.stringify(body1), 0);
      expect(read.ok && typeof read.data.content).to.equal('string');
      const r2 = await post('/messages', { model: 'x', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Say hi.' }] });
      expect(r2.headers.get('content-type')).to.match(/^text\/event-stream/);
      const read2 = readNativeAnswer('messages', 'text/event-stream', await r2.text(), 0);
      expect(read2.ok && read2.data.finishReason).to.equal('stop');
      const refused = await post('/messages', { model: 'x', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'mystery' }] }] });
      expect(refused.status).to.equal(400);
      expect(((await refused.json()) as { type: string }).type).to.equal('error');
      const stats = model.stats();
      expect(stats.requestsByPath).to.deep.equal({ '/v1/responses': 1, '/v1/messages': 2 });
      expect(stats.requests, 'chat completions requests').to.equal(0);
      expect(stats.completed).to.equal(2);
      expect(Object.values(stats.bodiesByPath['/v1/messages']!)).to.deep.equal([1, 1]);
    } finally {
      await model.close();
    }
  });
});

// The proxy's wire format as an agent meets it: bodies parsed into AgentModelRequest, and a job's
// reply rendered so that the real `openai` client reads the same message streamed or not, with
// usage exactly as reported (a field not reported stays absent, never 0).
import { expect } from 'chai';
import OpenAI, { APIError } from 'openai';
import { startAgentGateway } from '../../src/harness/external/gateway.js';
import { parseAgentRequest } from '../../src/harness/external/protocols/chat-wire.js';
import type { AgentEndpoints, AgentGateway, AgentJobHandlers, AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

type Completion = Extract<AgentModelReply, { ok: true }>;

const reply = (over: Partial<Completion> = {}): Completion => ({
  ok: true,
  id: 'chatcmpl-job1-0',
  model: 'run-model',
  content: 'Hello there, agent.',
  toolCalls: [],
  finishReason: 'stop',
  usage: { prompt: 12, completion: 5, total: 17 },
  ...over,
});

const ask = { model: 'whatever-the-agent-says', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('agent proxy: parsing a chat completion body', () => {
  it('keeps every other field as sent in params, and takes model, tools and stream for itself', () => {
    const parsed = parseAgentRequest(
      {
        ...ask,
        temperature: 0.2,
        tool_choice: { type: 'function', function: { name: 'ls' } },
        metadata: { a: [1] },
        stream: true,
        stream_options: { include_usage: true },
        tools: [
          { type: 'function', function: { name: 'ls' } },
          { type: 'function', function: { name: 'write', description: 'Write.', parameters: { type: 'object', properties: { p: { type: 'string' } } } } },
        ],
      },
      'query',
    );
    expect(parsed).to.deep.equal({
      attribution: 'query',
      messages: ask.messages,
      tools: [
        { name: 'ls', description: '', parameters: { type: 'object', properties: {} } },
        { name: 'write', description: 'Write.', parameters: { type: 'object', properties: { p: { type: 'string' } } } },
      ],
      params: { temperature: 0.2, tool_choice: { type: 'function', function: { name: 'ls' } }, metadata: { a: [1] } },
      stream: true,
      includeUsage: true,
    });
  });

  it('defaults to no stream and no usage chunk, and keeps messages it does not know as sent', () => {
    const messages = [{ role: 'developer', content: [{ type: 'text', text: 'be brief' }] }, ...ask.messages];
    const parsed = parseAgentRequest({ messages, stream_options: { include_usage: false } }, 'main');
    expect(parsed).to.deep.include({ messages, tools: [], params: {}, stream: false, includeUsage: false });
  });

  for (const [what, body, field] of [
    ['a body that is not an object', 'not an object', 'body'],
    ['no messages', { model: 'm' }, 'messages:'],
    ['messages that are not an array', { messages: 'hi' }, 'messages:'],
    ['a message without a role', { messages: [{ role: 'user', content: 'a' }, { content: 'no role' }] }, 'messages[1]'],
    ['tools that are not an array', { ...ask, tools: {} }, 'tools:'],
    [
      'a tool without a name',
      {
        ...ask,
        tools: [
          { type: 'function', function: { name: 'a' } },
          { type: 'function', function: { description: 'x' } },
        ],
      },
      'tools[1].function.name',
    ],
    ['a tool that is not a function', { ...ask, tools: [{ type: 'retrieval' }] }, 'tools[0].type'],
    [
      'parameters that are not a schema',
      { ...ask, tools: [{ type: 'function', function: { name: 'a', parameters: 'none' } }] },
      'tools[0].function.parameters',
    ],
    ['a stream flag that is not a boolean', { ...ask, stream: 'yes' }, 'stream:'],
    ['stream_options that are not an object', { ...ask, stream_options: 'usage' }, 'stream_options:'],
  ] as const) {
    it(`refuses ${what}, naming ${field.replace(/:$/, '')}`, () => {
      const parsed = parseAgentRequest(body, 'main');
      expect(parsed).to.have.property('error').that.is.a('string').and.includes(field);
    });
  }
});

describe('agent proxy: replies through the real openai client', () => {
  let gateway: AgentGateway;
  let job: AgentEndpoints;
  let client: OpenAI;
  let next: Completion | AgentModelReply;
  const seen: AgentModelRequest[] = [];
  const handlers: AgentJobHandlers = {
    model: async (request) => {
      seen.push(request);
      return next;
    },
    tools: () => [],
    callTool: () => Promise.reject(new Error('no tools here')),
  };

  before(async () => {
    gateway = await startAgentGateway();
    job = gateway.register(handlers);
    client = new OpenAI({ baseURL: job.baseUrl, apiKey: job.token, maxRetries: 0, logLevel: 'off' });
  });
  after(() => gateway.close());
  beforeEach(() => {
    seen.length = 0;
  });

  /** The same reply fetched plain and through both stream paths of the client: all must agree. */
  async function allForms(r: Completion, includeUsage = true) {
    next = r;
    const plain = await client.chat.completions.create(ask);
    const helper = await client.chat.completions.stream({ ...ask, stream_options: { include_usage: includeUsage } }).finalChatCompletion();
    const chunks = [];
    for await (const chunk of await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: includeUsage } }))
      chunks.push(chunk);
    // The helper adds `parsed: null` (it parses structured outputs); nothing else may differ.
    const { parsed, ...message } = helper.choices[0]?.message ?? {};
    expect(parsed).to.equal(null);
    // Without include_usage the stream carries no usage, as OpenAI's does; the rest is the same.
    const { usage, ...unmetered } = plain;
    expect({ ...helper, choices: [{ ...helper.choices[0], message }] }).to.deep.equal(includeUsage ? plain : unmetered);
    expect(usage !== undefined).to.equal(r.usage !== null && Object.values(r.usage).some((v) => v !== null && v !== undefined));
    return { plain, chunks, helper };
  }

  it('content: the message, finish reason, id, model and usage by OpenAI names, streamed or not', async () => {
    const { plain, chunks } = await allForms(reply({ usage: { prompt: 12, completion: 5, total: 17, cached: 8 } }));
    expect(plain).to.deep.include({ id: 'chatcmpl-job1-0', object: 'chat.completion', model: 'run-model' });
    expect(plain.choices).to.deep.equal([
      { index: 0, message: { role: 'assistant', content: 'Hello there, agent.', refusal: null }, finish_reason: 'stop', logprobs: null },
    ]);
    expect(plain.usage).to.deep.equal({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17, prompt_tokens_details: { cached_tokens: 8 } });
    expect(chunks[0]?.choices[0]?.delta.role).to.equal('assistant');
    const last = chunks.at(-1);
    expect(last?.choices).to.deep.equal([]);
    expect(last?.usage).to.deep.equal(plain.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).to.equal(true);
    expect(seen.map((r) => [r.stream, r.includeUsage])).to.deep.equal([
      [false, false],
      [true, true],
      [true, true],
    ]);
  });

  it('tool calls: ids, names and arguments; a null content stays null in every form', async () => {
    const toolCalls = [
      { id: 'call_a', name: 'write_file', arguments: '{"path":"a.txt","text":"hé ✓"}' },
      { id: 'call_b', name: 'list_files', arguments: '' },
    ];
    const { plain, chunks } = await allForms(reply({ content: null, toolCalls, finishReason: 'tool_calls' }));
    expect(plain.choices[0]?.finish_reason).to.equal('tool_calls');
    expect(plain.choices[0]?.message).to.deep.equal({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    const deltas = chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []));
    expect(deltas.filter((d) => d.id).map((d) => [d.index, d.id, d.type, d.function?.name])).to.deep.equal([
      [0, 'call_a', 'function', 'write_file'],
      [1, 'call_b', 'function', 'list_files'],
    ]);
  });

  it('content and tool calls together', async () => {
    const { plain } = await allForms(reply({ content: 'Listing.', toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }], finishReason: 'tool_calls' }));
    expect(plain.choices[0]?.message.content).to.equal('Listing.');
    expect(plain.choices[0]?.message.tool_calls).to.have.length(1);
  });

  it('an empty content is "" on the wire, streamed or not (not null)', async () => {
    next = reply({ content: '' });
    const plain = await client.chat.completions.create(ask);
    expect(plain.choices[0]?.message.content).to.equal('');
    const chunks = [];
    for await (const chunk of await client.chat.completions.create({ ...ask, stream: true })) chunks.push(chunk);
    // The client's stream helper cannot tell "" from null (it skips empty deltas, as with OpenAI);
    // the wire can, and an agent reading the chunks sees "".
    expect(chunks.map((c) => c.choices[0]?.delta.content)).to.deep.equal(['', undefined]);
  });

  it('usage not reported: no usage key at all, and no usage chunk even when asked for', async () => {
    const { plain, chunks } = await allForms(reply({ usage: null }));
    expect(plain).to.not.have.property('usage');
    expect(chunks.every((c) => !('usage' in c))).to.equal(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).to.equal('stop');
    const allNull = await allForms(reply({ usage: { prompt: null, completion: null, total: null, cached: null } }));
    expect(allNull.plain).to.not.have.property('usage');
  });

  it('usage partly reported: the missing fields are absent, never 0', async () => {
    const { plain, chunks } = await allForms(reply({ usage: { prompt: 30, completion: null, total: null } }));
    expect(plain.usage).to.deep.equal({ prompt_tokens: 30 });
    expect(chunks.at(-1)?.usage).to.deep.equal({ prompt_tokens: 30 });
  });

  it('include_usage off: no usage chunk though usage was reported', async () => {
    const { chunks } = await allForms(reply(), false);
    expect(chunks.some((c) => c.usage)).to.equal(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).to.equal('stop');
  });

  it('the same reply renders to the same bytes (a replayed answer is byte-identical)', async () => {
    next = reply({ toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] });
    const raw = async (stream: boolean) => {
      const res = await fetch(`${job.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...ask, stream, stream_options: { include_usage: true } }),
      });
      expect(res.headers.get('content-type')).to.match(stream ? /^text\/event-stream/ : /^application\/json/);
      return res.text();
    };
    const sse = await raw(true);
    expect(await raw(true)).to.equal(sse);
    expect(await raw(false)).to.equal(await raw(false));
    expect(sse.endsWith('data: [DONE]\n\n')).to.equal(true);
    expect(sse.split('\n\n').filter((e) => e !== '' && !e.startsWith('data: '))).to.deep.equal([]);
  });

  it('an error reply: its status, and an OpenAI-shaped body with evalog code', async () => {
    next = { ok: false, status: 429, code: 'budget_exhausted', message: 'the job used its 3 model calls' };
    const err = await client.chat.completions.create(ask).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).to.be.instanceOf(APIError);
    expect(err).to.include({ status: 429, code: 'budget_exhausted', type: 'evalog_error', param: null });
    expect((err as APIError).message).to.include('the job used its 3 model calls');
    // A streamed request gets the same error as JSON: nothing was streamed yet.
    const res = await fetch(`${job.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${job.token}` },
      body: JSON.stringify({ ...ask, stream: true }),
    });
    expect(res.status).to.equal(429);
    expect(await res.json()).to.deep.equal({
      error: { message: 'the job used its 3 model calls', type: 'evalog_error', code: 'budget_exhausted', param: null },
    });
  });
});

// The scripted model serves any agent (issue 15, part 7): an OpenAI-valid chat request in whatever
// shape an agent's client sends it is answered, and one no player recognises gets a plain labelled
// assistant message, never an HTTP error; so any agent runs offline.
import { expect } from 'chai';
import OpenAI from 'openai';
import { startScriptedModel, type ScriptedModel } from '../../src/providers/scripted/index.js';
import { contextSnapshotPlayer } from '../../packages/suite-context-snapshot/src/index.js';
import { smokePlayer } from '../../src/suites/smoke/index.js';

const user = { role: 'user', content: 'What is the weather like?' };
const tool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

/** Requests an agent may send, each valid for OpenAI's chat completions API. */
const AGENT_REQUESTS: Record<string, Record<string, unknown>> = {
  'content-part arrays, the developer role and name fields': {
    messages: [
      { role: 'developer', name: 'rules', content: [{ type: 'text', text: 'Be brief.' }] },
      {
        role: 'user',
        name: 'alice',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
        ],
      },
    ],
  },
  'extra sampling params': {
    messages: [user],
    top_p: 0.9,
    stop: ['\n\n', 'END'],
    presence_penalty: 0.1,
    frequency_penalty: 0.1,
    logit_bias: { '50256': -100 },
    logprobs: false,
    seed: 42,
    user: 'agent-1',
    metadata: { run: 'x' },
    store: false,
    reasoning_effort: 'low',
    service_tier: 'auto',
  },
  'response_format json_schema': {
    messages: [user],
    response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
  },
  'tools without descriptions, tool_choice auto and parallel_tool_calls': { messages: [user], tools: [tool], tool_choice: 'auto', parallel_tool_calls: false },
  "tool_choice 'none'": { messages: [user], tools: [tool], tool_choice: 'none' },
  'tool_choice allowed_tools': {
    messages: [user],
    tools: [tool],
    tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_weather' } }] } },
  },
  'empty tools and null params': { messages: [user], tools: [], temperature: null, max_tokens: null, stream: false, stream_options: null, n: 1 },
  'a tool round trip with content parts and a refusal part': {
    messages: [
      user,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'refusal', refusal: 'none' },
        ],
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'sunny' }] },
    ],
    tools: [tool],
  },
  'the legacy function role and functions param': {
    messages: [user, { role: 'function', name: 'get_weather', content: 'sunny' }],
    functions: [{ name: 'get_weather' }],
    function_call: 'auto',
  },
};

const post = (model: ScriptedModel, body: unknown) =>
  fetch(`${model.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('scripted model: any agent is answered', () => {
  let model: ScriptedModel;
  before(async () => {
    // The bundled suites' players are asked first, as `evalog mock-server` and an offline run ask them.
    model = await startScriptedModel({ seed: 3, players: [smokePlayer, contextSnapshotPlayer] });
  });
  after(() => model.close());

  for (const [what, extra] of Object.entries(AGENT_REQUESTS)) {
    it(`${what}: 200 and a plain labelled assistant message`, async () => {
      const res = await post(model, { model: 'scripted', ...extra });
      const body = (await res.json()) as { choices: { message: { role: string; content: string; tool_calls?: unknown }; finish_reason: string }[] };
      expect(res.status, JSON.stringify(body)).to.equal(200);
      const { message, finish_reason } = body.choices[0]!;
      expect(message.role).to.equal('assistant');
      expect(message.content).to.match(/^Scripted reply \(seed 3\) to \d+ message\(s\); last: /);
      expect(message.tool_calls).to.equal(undefined);
      expect(finish_reason).to.equal('stop');
    });
  }

  it('through the real openai client, streamed with stream_options: the labelled text arrives in chunks, with a usage chunk', async () => {
    const client = new OpenAI({ baseURL: model.url, apiKey: 'agent-token', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
        { role: 'user', name: 'bob', content: 'Hi there' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather' } }],
      tool_choice: 'auto',
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).to.equal('Scripted reply (seed 3) to 2 message(s); last: "Hi there".');
    expect(usage).to.have.keys(['prompt_tokens', 'completion_tokens', 'total_tokens']);
  });

  it('an unknown model id is answered as any other (the response names the model asked for); /v1/models lists only the configured ids', async () => {
    const res = await post(model, { model: 'gpt-no-such-model', messages: [user] });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { model: string }).model).to.equal('gpt-no-such-model');
    const models = (await (await fetch(`${model.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).to.deep.equal(['scripted']);
  });

  it('what is not a chat request it can answer is still a 400 naming the field: no messages, no model, more than one choice', async () => {
    for (const [body, param] of [
      [{ model: 'scripted', messages: [] }, 'messages'],
      [{ messages: [user] }, 'model'],
      [{ model: 'scripted', messages: [user], n: 2 }, 'n'],
    ] as const) {
      const res = await post(model, body);
      expect(res.status, param).to.equal(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).to.equal(param);
    }
  });
});

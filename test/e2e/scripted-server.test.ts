import { expect } from 'chai';
import OpenAI, { BadRequestError } from 'openai';
import { performance } from 'node:perf_hooks';
import { startScriptedModel, lastMessageText, requestHash, type Player, type ScriptedModel } from '../../src/providers/scripted/index.js';

// A suite-like player: asks for `add` when tools are offered, then reads the tool result.
const adder: Player = (request, { rng }) => {
  const last = request.messages[request.messages.length - 1];
  if (last?.role === 'tool') return { content: `The sum is ${lastMessageText(request)}.` };
  if (!request.tools?.some((t) => t.function.name === 'add')) return null;
  const b = 2 + Math.floor(rng() * 5);
  return {
    content: 'Let me add that.',
    toolCalls: [
      { name: 'add', arguments: JSON.stringify({ a: 40, b }) },
      { name: 'note', arguments: '{"text":"adding"}' },
    ],
  };
};

const addTool = {
  type: 'function' as const,
  function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
};
const ask = (content: string) => ({ model: 'scripted', messages: [{ role: 'user' as const, content }] });
const clientFor = (m: ScriptedModel, extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) =>
  new OpenAI({ baseURL: m.url, apiKey: 'scripted-no-key', maxRetries: 0, logLevel: 'off', ...extra });

describe('scripted model server (openai client over loopback)', () => {
  let model: ScriptedModel;
  let client: OpenAI;
  before(async () => {
    model = await startScriptedModel({ seed: 0, players: [adder] });
    client = clientFor(model);
  });
  after(() => model.close());
  beforeEach(() => model.resetStats());

  it('listens on 127.0.0.1 and lists its model', async () => {
    expect(model.url).to.equal(`http://127.0.0.1:${model.port}/v1`);
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).to.deep.equal(['scripted']);
  });

  it('answers a plain completion with usage', async () => {
    const res = await client.chat.completions.create({ ...ask('Say hi'), temperature: 0, max_tokens: 200, seed: 7 });
    expect(res.object).to.equal('chat.completion');
    expect(res.id).to.match(/^chatcmpl-[0-9a-f]{29}$/);
    expect(res.created).to.equal(1_704_067_200);
    expect(res.choices[0]?.message.content).to.match(/^Scripted reply \(seed 0\) to 1 message\(s\); last: "Say hi"\.$/);
    expect(res.choices[0]?.finish_reason).to.equal('stop');
    const usage = res.usage!;
    expect(usage.prompt_tokens).to.be.greaterThan(0);
    expect(usage.total_tokens).to.equal(usage.prompt_tokens + usage.completion_tokens);
  });

  it('plays tool calls and reads tool results back', async () => {
    const first = await client.chat.completions.create({ ...ask('What is 40 + b?'), tools: [addTool, { type: 'function', function: { name: 'note' } }] });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).to.equal('tool_calls');
    const calls = choice.message.tool_calls!;
    expect(calls.map((c) => c.type === 'function' && c.function.name)).to.deep.equal(['add', 'note']);
    expect(calls.map((c) => c.id)).to.deep.equal([0, 1].map((i) => `call_${first.id.slice(9, 25)}_${i}`));
    const call = calls[0]!;
    if (call.type !== 'function') throw new Error('expected a function call');
    const { a, b } = JSON.parse(call.function.arguments) as { a: number; b: number };
    const second = await client.chat.completions.create({
      model: 'scripted',
      tools: [addTool],
      messages: [{ role: 'user', content: 'What is 40 + b?' }, choice.message, { role: 'tool', tool_call_id: call.id, content: String(a + b) }],
    });
    expect(second.choices[0]?.message.content).to.equal(`The sum is ${a + b}.`);
  });

  it('streams SSE chunks that reassemble to the same answer, with usage last', async () => {
    const params = { ...ask('What is 40 + b?'), tools: [addTool] };
    const whole = await client.chat.completions.create(params);
    const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
    let content = '';
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    const finish: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      expect(chunk.id).to.equal(whole.id);
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) {
        content += c.delta.content ?? '';
        for (const t of c.delta.tool_calls ?? []) {
          calls[t.index] ??= { arguments: '' };
          const slot = calls[t.index]!;
          if (t.id) slot.id = t.id;
          if (t.function?.name) slot.name = t.function.name;
          slot.arguments += t.function?.arguments ?? '';
        }
        if (c.finish_reason) finish.push(c.finish_reason);
      }
    }
    const message = whole.choices[0]!.message;
    expect(chunks).to.be.greaterThan(5);
    expect(content).to.equal(message.content);
    expect(calls).to.deep.equal(message.tool_calls!.map((t) => t.type === 'function' && { id: t.id, name: t.function.name, arguments: t.function.arguments }));
    expect(finish).to.deep.equal(['tool_calls']);
    expect(usage).to.deep.equal(whole.usage);
  });

  it("works with the client's own stream accumulator", async () => {
    const runner = client.chat.completions.stream({ ...ask('Tell me something'), stream_options: { include_usage: true } });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.content).to.match(/^Scripted reply/);
    expect(final.usage?.total_tokens).to.be.greaterThan(0);
  });

  it('is deterministic: the same request gives byte-identical bodies, another seed may differ', async () => {
    const params = { ...ask('What is 40 + b?'), tools: [addTool], temperature: 0.7 };
    const bodies = await Promise.all([1, 2].map(async () => (await client.chat.completions.create(params).asResponse()).text()));
    expect(bodies[0]).to.equal(bodies[1]);
    const other = await startScriptedModel({ seed: 1, players: [adder] });
    try {
      const otherBody = await (await clientFor(other).chat.completions.create(params).asResponse()).text();
      expect(otherBody).to.not.equal(bodies[0]);
      expect(JSON.parse(otherBody).id).to.not.equal(JSON.parse(bodies[0]!).id);
    } finally {
      await other.close();
    }
  });

  it('counts requests, completions and bodies by the documented hash', async () => {
    const params = ask('count me');
    await client.chat.completions.create(params);
    await client.chat.completions.create(params);
    await client.chat.completions.create(ask('another'));
    const stats = model.stats();
    expect(stats.requests).to.equal(3);
    expect(stats.completed).to.equal(3);
    expect(stats.byStatus).to.deep.equal({ '200': 3 });
    expect(stats.byRequestHash[requestHash(params)]).to.equal(2);
    expect(stats.completedByRequestHash[requestHash(params)]).to.equal(2);
    expect(Object.values(stats.byRequestHash).reduce((a, b) => a + b, 0)).to.equal(3);
    const overHttp = await (await fetch(`http://127.0.0.1:${model.port}/_scripted/stats`)).json();
    expect(overHttp).to.deep.equal(stats);
    await fetch(`http://127.0.0.1:${model.port}/_scripted/reset`, { method: 'POST' });
    expect(model.stats().requests).to.equal(0);
  });

  it('answers a bad request with a 400 naming the field', async () => {
    const err = await client.chat.completions.create({ model: 'scripted', messages: [] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(BadRequestError);
    expect((err as BadRequestError).status).to.equal(400);
    expect((err as BadRequestError).param).to.equal('messages');
    const raw = await fetch(`${model.url}/chat/completions`, { method: 'POST', body: '{not json' });
    expect(raw.status).to.equal(400);
    expect(((await raw.json()) as { error: { type: string } }).error.type).to.equal('invalid_request_error');
    expect(model.stats().byStatus).to.deep.equal({ '400': 2 });
  });

  it('cuts answers to max_tokens with finish_reason length', async () => {
    const res = await client.chat.completions.create({ ...ask('A long question that gets a long echo back'), max_completion_tokens: 3 });
    expect(res.choices[0]?.finish_reason).to.equal('length');
    expect(res.choices[0]?.message.content).to.have.length(12);
    expect(res.usage?.completion_tokens).to.equal(3);
  });
});

describe('scripted model server options', () => {
  it('leaves usage out when asked, and counts it', async () => {
    const model = await startScriptedModel({ omitUsage: 'always' });
    try {
      const client = clientFor(model);
      const res = await client.chat.completions.create(ask('usage?'));
      expect(res.usage).to.equal(undefined);
      const stream = await client.chat.completions.create({ ...ask('usage?'), stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) expect(chunk.usage ?? null).to.equal(null);
      expect(model.stats().usageOmitted).to.equal(2);
    } finally {
      await model.close();
    }
  });

  it('omits usage for a deterministic fraction of requests', async () => {
    const model = await startScriptedModel({ omitUsage: 0.5 });
    try {
      const client = clientFor(model);
      const missing = async () => {
        const out: boolean[] = [];
        for (let i = 0; i < 20; i += 1) out.push((await client.chat.completions.create(ask(`q${i}`))).usage === undefined);
        return out;
      };
      const first = await missing();
      expect(await missing()).to.deep.equal(first);
      expect(first.filter(Boolean).length).to.be.within(3, 17);
    } finally {
      await model.close();
    }
  });

  it('adds latency before answering', async () => {
    const model = await startScriptedModel({ latencyMs: 150 });
    try {
      const started = performance.now();
      await clientFor(model).chat.completions.create(ask('slow?'));
      expect(performance.now() - started).to.be.at.least(145);
    } finally {
      await model.close();
    }
  });

  it('holds 32 requests in their latency at once without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const model = await startScriptedModel({ latencyMs: 50 });
    try {
      const client = clientFor(model);
      const answers = await Promise.all(Array.from({ length: 32 }, (_, i) => client.chat.completions.create(ask(`q${i}`))));
      expect(answers).to.have.length(32);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings.filter((w) => w.includes('MaxListeners'))).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
      await model.close();
    }
  });
});

import { expect } from 'chai';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, InternalServerError, RateLimitError } from 'openai';
import { requestHash, startScriptedModel, type FaultRule, type ScriptedModel } from '../../src/providers/scripted/index.js';

// Each fault kind, seen the way the provider caller will see it: through the real openai client.
const ask = (content: string) => ({ model: 'scripted', messages: [{ role: 'user' as const, content }] });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

describe('scripted model faults (openai client, maxRetries 0)', () => {
  let model: ScriptedModel;
  let client: OpenAI;
  const inject = (...rules: FaultRule[]) => {
    model.setFaults(rules);
    model.resetStats();
  };
  before(async () => {
    model = await startScriptedModel({ timeoutCapMs: 5_000 });
    client = new OpenAI({ baseURL: model.url, apiKey: 'scripted-no-key', maxRetries: 0, logLevel: 'off' });
  });
  after(() => model.close());

  it('rate_limit: 429 with retry-after', async () => {
    inject({ kind: 'rate_limit', retryAfterSeconds: 7 });
    const err = await failure(client.chat.completions.create(ask('hi')));
    expect(err).to.be.instanceOf(RateLimitError);
    expect((err as RateLimitError).status).to.equal(429);
    expect((err as RateLimitError).headers?.get('retry-after')).to.equal('7');
    expect(model.stats()).to.deep.include({ completed: 0, byStatus: { '429': 1 }, faults: { rate_limit: 1 } });
  });

  it('server_error: the configured 5xx', async () => {
    inject({ kind: 'server_error', status: 503 });
    const err = await failure(client.chat.completions.create(ask('hi')));
    expect(err).to.be.instanceOf(InternalServerError);
    expect((err as InternalServerError).status).to.equal(503);
  });

  it('reset: the connection drops, an APIConnectionError', async () => {
    inject({ kind: 'reset' });
    const err = await failure(client.chat.completions.create(ask('hi')));
    expect(err).to.be.instanceOf(APIConnectionError);
    expect(err).to.not.be.instanceOf(APIConnectionTimeoutError);
    expect(model.stats()).to.deep.include({ completed: 0, byStatus: {}, faults: { reset: 1 } });
  });

  it('timeout: no answer until the client gives up', async () => {
    inject({ kind: 'timeout' });
    const err = await failure(client.chat.completions.create(ask('hi'), { timeout: 200 }));
    expect(err).to.be.instanceOf(APIConnectionTimeoutError);
    expect(model.stats()).to.deep.include({ completed: 0, faults: { timeout: 1 } });
  });

  it('malformed: a 200 whose body is not JSON', async () => {
    inject({ kind: 'malformed' });
    const err = await failure(client.chat.completions.create(ask('hi')));
    expect(err).to.be.instanceOf(Error);
    expect(err).to.not.be.instanceOf(APIError); // not an HTTP error: the status was 200
    const raw = await fetch(`${model.url}/chat/completions`, { method: 'POST', body: JSON.stringify(ask('hi')) });
    expect(raw.status).to.equal(200);
    const text = await raw.text();
    expect(() => JSON.parse(text)).to.throw(SyntaxError);
    const stream = await client.chat.completions.create({ ...ask('hi'), stream: true });
    const streamErr = await failure(
      (async () => {
        for await (const _ of stream) void _;
      })(),
    );
    expect(streamErr).to.be.instanceOf(SyntaxError);
    expect(model.stats()).to.deep.include({ completed: 0, faults: { malformed: 3 } });
  });

  it('empty_choices: a completion without choices', async () => {
    inject({ kind: 'empty_choices' });
    const res = await client.chat.completions.create(ask('hi'));
    expect(res.choices).to.deep.equal([]);
    expect(res.usage?.total_tokens).to.be.greaterThan(0);
    expect(model.stats().completed).to.equal(0);
  });

  it('truncated: content cut, finish_reason length', async () => {
    inject();
    const full = await client.chat.completions.create(ask('a question long enough to be cut'));
    inject({ kind: 'truncated' });
    const cut = await client.chat.completions.create(ask('a question long enough to be cut'));
    expect(cut.choices[0]?.finish_reason).to.equal('length');
    const text = full.choices[0]!.message.content!;
    expect(cut.choices[0]?.message.content).to.equal(text.slice(0, Math.ceil(text.length / 2)));
    expect(model.stats()).to.deep.include({ completed: 1, faults: { truncated: 1 } });
  });

  it('no_usage: usage left out', async () => {
    inject({ kind: 'no_usage' });
    const res = await client.chat.completions.create(ask('hi'));
    expect(res.usage).to.equal(undefined);
    expect(model.stats()).to.deep.include({ completed: 1, usageOmitted: 1, faults: { no_usage: 1 } });
  });

  it('match and times pick which requests fail', async () => {
    inject({ kind: 'server_error', match: 'boom', times: 1 });
    expect((await client.chat.completions.create(ask('calm'))).choices).to.have.length(1);
    expect(await failure(client.chat.completions.create(ask('a boom here')))).to.be.instanceOf(InternalServerError);
    expect((await client.chat.completions.create(ask('a boom here'))).choices).to.have.length(1);
    expect(model.stats()).to.deep.include({ requests: 3, completed: 2, faults: { server_error: 1 } });
  });

  it('a retried call shows in byRequestHash, but completes once', async () => {
    inject({ kind: 'rate_limit', retryAfterSeconds: 0, times: 1 });
    const retrying = new OpenAI({ baseURL: model.url, apiKey: 'scripted-no-key', maxRetries: 2, logLevel: 'off' });
    const params = ask('retry me');
    await retrying.chat.completions.create(params);
    const stats = model.stats();
    expect(stats.byRequestHash).to.deep.equal({ [requestHash(params)]: 2 });
    expect(stats.completedByRequestHash).to.deep.equal({ [requestHash(params)]: 1 });
    expect(stats.byStatus).to.deep.equal({ '200': 1, '429': 1 });
  });

  it('faults can be set over HTTP, with /source/flags patterns', async () => {
    inject();
    const set = await fetch(`http://127.0.0.1:${model.port}/_scripted/faults`, {
      method: 'POST',
      body: JSON.stringify([{ kind: 'rate_limit', match: '/^PANIC/i' }]),
    });
    expect(set.status).to.equal(200);
    expect(await failure(client.chat.completions.create(ask('panic now')))).to.be.instanceOf(RateLimitError);
    expect((await client.chat.completions.create(ask('calm, no panic'))).choices).to.have.length(1);
    const bad = await fetch(`http://127.0.0.1:${model.port}/_scripted/faults`, { method: 'POST', body: JSON.stringify([{ kind: 'nope' }]) });
    expect(bad.status).to.equal(400);
  });
});

describe('scripted model close', () => {
  it('ends requests held open by a timeout fault', async () => {
    const model = await startScriptedModel({ faults: [{ kind: 'timeout' }] });
    const pending = fetch(`${model.url}/chat/completions`, { method: 'POST', body: JSON.stringify(ask('wait')) }).then(
      () => 'answered',
      () => 'dropped',
    );
    while (!model.stats().faults.timeout) await new Promise((r) => setTimeout(r, 5));
    await model.close();
    expect(await pending).to.equal('dropped');
  });
});

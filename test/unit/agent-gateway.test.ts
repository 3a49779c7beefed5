// The loopback gateway as agents reach it over real HTTP: each job's requests reach that job's
// handlers only, with its own token, attributed as the agent said, one at a time, and never from
// another machine.
import { createConnection } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { GatewayClosedError, startAgentGateway } from '../../src/harness/external/gateway.js';
import type { AgentEndpoints, AgentGateway, AgentJobHandlers, AgentModelReply, AgentModelRequest } from '../../src/harness/kernel/agent-gateway.js';

const ask = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const answer = (content: string): AgentModelReply => ({
  ok: true,
  id: `chatcmpl-${content}`,
  model: 'run-model',
  content,
  toolCalls: [],
  finishReason: 'stop',
  usage: null,
});

/** A job whose model answers with the text of the last message, keeping every request it saw. */
function echoJob(model?: (r: AgentModelRequest) => Promise<AgentModelReply>) {
  const requests: AgentModelRequest[] = [];
  const tools: { name: string; args: unknown }[] = [];
  const handlers: AgentJobHandlers = {
    model: (r) => {
      requests.push(r);
      const last = r.messages.at(-1);
      return model ? model(r) : Promise.resolve(answer(last && 'content' in last && typeof last.content === 'string' ? last.content : ''));
    },
    tools: () => [{ name: 'ls', description: 'List the workspace.', parameters: { type: 'object', properties: {} } }],
    callTool: async (name, args) => {
      tools.push({ name, args });
      return { result: `ran ${name}`, isError: false };
    },
  };
  return { handlers, requests, tools };
}

const clientOf = (baseURL: string, apiKey: string) => new OpenAI({ baseURL, apiKey, maxRetries: 0, logLevel: 'off' });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );

/** A raw POST to a job's chat completions, for what the openai client will not send. */
async function post(url: string, token: string | null, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

describe('agent gateway', () => {
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

  it('gives each job its own key, token and URLs on 127.0.0.1', () => {
    const a = register(echoJob().handlers);
    const b = register(echoJob().handlers);
    const shape = /^http:\/\/127\.0\.0\.1:\d+\/jobs\/[A-Za-z0-9_-]{16}\/v1$/;
    expect(a.baseUrl).to.match(shape);
    expect(a.attributionUrl('child')).to.equal(a.baseUrl.replace(/\/v1$/, '/a/child/v1'));
    expect(a.mcpUrl).to.equal(a.baseUrl.replace(/\/v1$/, '/mcp'));
    expect(a.token).to.match(/^evalog-job-[A-Za-z0-9_-]{43}$/);
    expect(b.baseUrl).to.not.equal(a.baseUrl);
    expect(b.token).to.not.equal(a.token);
  });

  it('listens on the loopback interface only', async () => {
    const job = register(echoJob().handlers);
    const port = Number(new URL(job.baseUrl).port);
    const connects = (host: string) =>
      new Promise<boolean>((resolve) => {
        const socket = createConnection({ host, port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      });
    expect(await connects('127.0.0.1')).to.equal(true);
    const external = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i?.address ?? '');
    // Also ::1: a server on '::' (every interface, both families) would take it.
    for (const host of ['::1', ...external]) expect(await connects(host), host).to.equal(false);
  });

  it('attributes a call by header (default main) or by the per-attribution URL', async () => {
    const { handlers, requests } = echoJob();
    const job = register(handlers);
    const client = clientOf(job.baseUrl, job.token);
    await client.chat.completions.create(ask);
    await client.chat.completions.create(ask, { headers: { 'X-Evalog-Attribution': 'query' } });
    await client.chat.completions.create(ask, { headers: { 'X-Evalog-Attribution': 'child' } });
    // The URL wins over a header: a client that cannot set headers may still send a default one.
    await clientOf(job.attributionUrl('child'), job.token).chat.completions.create(ask, { headers: { 'X-Evalog-Attribution': 'main' } });
    await clientOf(job.attributionUrl('query'), job.token).chat.completions.create({ ...ask, stream: true });
    expect(requests.map((r) => r.attribution)).to.deep.equal(['main', 'query', 'child', 'child', 'query']);
  });

  it('refuses an unknown attribution with a 400 naming the header or the URL, without asking the job', async () => {
    const { handlers, requests } = echoJob();
    const job = register(handlers);
    const err = await failure(clientOf(job.baseUrl, job.token).chat.completions.create(ask, { headers: { 'X-Evalog-Attribution': 'grading' } }));
    expect(err).to.be.instanceOf(APIError).and.include({ status: 400, code: 'invalid_attribution', type: 'invalid_request_error' });
    expect((err as APIError).message)
      .to.include('X-Evalog-Attribution')
      .and.include('grading');
    const byUrl = await post(job.baseUrl.replace(/\/v1$/, '/a/unknown/v1'), job.token, JSON.stringify(ask));
    expect(byUrl.status).to.equal(400);
    expect(byUrl.text).to.include('/a/<attribution>/');
    expect(requests).to.deep.equal([]);
  });

  it("refuses another job's token, a missing token and a malformed header with a 401, never echoing a token", async () => {
    const a = echoJob();
    const b = echoJob();
    const jobA = register(a.handlers);
    const jobB = register(b.handlers);
    const err = await failure(clientOf(jobA.baseUrl, jobB.token).chat.completions.create(ask));
    expect(err).to.be.instanceOf(APIError).and.include({ status: 401, code: 'invalid_api_key', type: 'invalid_request_error' });
    const wrong: Record<string, string>[] = [
      {},
      { authorization: jobA.token },
      { authorization: `Bearer ${jobA.token}x` },
      { authorization: `Basic ${jobA.token}` },
    ];
    for (const [i, headers] of wrong.entries()) {
      const res = await post(jobA.baseUrl, null, JSON.stringify(ask), headers);
      expect(res.status, `header ${i}`).to.equal(401);
      expect(res.text).to.not.include(jobA.token.slice(11));
    }
    // The MCP route of a job is guarded the same way.
    const mcp = await fetch(jobA.mcpUrl, { method: 'POST', headers: { authorization: `Bearer ${jobB.token}` }, body: '{}' });
    expect(mcp.status).to.equal(401);
    expect(a.requests.length + b.requests.length + a.tools.length).to.equal(0);
    // Its own token still works.
    await clientOf(jobA.baseUrl, jobA.token).chat.completions.create(ask);
    expect(a.requests).to.have.length(1);
  });

  it('after close() the job is gone: its token gets 401, an unknown key 404, and the job is not asked', async () => {
    const { handlers, requests } = echoJob();
    const job = gateway.register(handlers);
    const client = clientOf(job.baseUrl, job.token);
    await client.chat.completions.create(ask);
    job.close();
    expect(await failure(client.chat.completions.create(ask)))
      .to.be.instanceOf(APIError)
      .and.include({ status: 401, code: 'invalid_api_key' });
    const unknown = await post(job.baseUrl.replace(/\/jobs\/[^/]+\//, '/jobs/AAAAAAAAAAAAAAAA/'), job.token, JSON.stringify(ask));
    expect(unknown.status).to.equal(404);
    expect(JSON.parse(unknown.text)).to.have.nested.property('error.code', 'not_found');
    expect(requests).to.have.length(1);
  });

  it('a request queued when its job closes is refused, not handed to the job', async () => {
    let release = () => {};
    const { handlers, requests } = echoJob(() => new Promise((resolve) => (release = () => resolve(answer('first')))));
    const job = gateway.register(handlers);
    const client = clientOf(job.baseUrl, job.token);
    const first = client.chat.completions.create(ask);
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const second = failure(client.chat.completions.create(ask));
    await new Promise((r) => setTimeout(r, 50));
    job.close();
    release();
    expect((await first).choices[0]?.message.content).to.equal('first');
    expect(await second)
      .to.be.instanceOf(APIError)
      .and.include({ status: 401 });
    expect(requests).to.have.length(1);
  });

  it('refuses a body that is not JSON, or lacks messages, with a 400 naming the field, without asking the job', async () => {
    const { handlers, requests } = echoJob();
    const job = register(handlers);
    const notJson = await post(job.baseUrl, job.token, '{"messages": [');
    expect(notJson.status).to.equal(400);
    expect(JSON.parse(notJson.text)).to.deep.equal({
      error: { message: 'the request body is not JSON', type: 'invalid_request_error', code: 'invalid_request', param: null },
    });
    const err = await failure(clientOf(job.baseUrl, job.token).chat.completions.create({ model: 'm' } as never));
    expect(err).to.be.instanceOf(APIError).and.include({ status: 400, code: 'invalid_request' });
    expect((err as APIError).message).to.include('messages');
    const badTool = await post(job.baseUrl, job.token, JSON.stringify({ ...ask, tools: [{ type: 'function', function: {} }] }));
    expect(badTool.status).to.equal(400);
    expect(badTool.text).to.include('tools[0].function.name');
    expect(requests).to.deep.equal([]);
  });

  it('refuses a body over 16 MiB with a 413, declared or streamed', async () => {
    const { handlers, requests } = echoJob();
    const job = register(handlers);
    const huge = JSON.stringify({ ...ask, messages: [{ role: 'user', content: 'x'.repeat(16 * 1024 * 1024) }] });
    const declared = await post(job.baseUrl, job.token, huge);
    expect(declared.status).to.equal(413);
    expect(JSON.parse(declared.text)).to.have.nested.property('error.code', 'request_too_large');
    // Chunked, with no content-length: the limit holds while reading.
    const bytes = new TextEncoder().encode(huge);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1 << 20) controller.enqueue(bytes.subarray(i, i + (1 << 20)));
        controller.close();
      },
    });
    const init = { method: 'POST', headers: { authorization: `Bearer ${job.token}` }, body, duplex: 'half' };
    const streamed = await fetch(`${job.baseUrl}/chat/completions`, init as RequestInit);
    expect(streamed.status).to.equal(413);
    expect(requests).to.deep.equal([]);
  });

  it("serialises a job's model requests: the second reaches the job after the first is answered", async () => {
    const log: string[] = [];
    const { handlers } = echoJob(async (r) => {
      const text = String((r.messages[0] as { content: string }).content);
      log.push(`start ${text}`);
      await new Promise((resolve) => setTimeout(resolve, text === 'one' ? 150 : 1));
      log.push(`end ${text}`);
      return answer(text);
    });
    const job = register(handlers);
    const client = clientOf(job.baseUrl, job.token);
    const say = (content: string) => client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] });
    const one = say('one');
    await new Promise((r) => setTimeout(r, 20));
    const [a, b] = await Promise.all([one, say('two')]);
    expect(log).to.deep.equal(['start one', 'end one', 'start two', 'end two']);
    expect([a.choices[0]?.message.content, b.choices[0]?.message.content]).to.deep.equal(['one', 'two']);
  });

  it("does not make one job's agent wait for another job's", async () => {
    let release = () => {};
    const slow = register(echoJob(() => new Promise((resolve) => (release = () => resolve(answer('slow'))))).handlers);
    const fast = register(echoJob().handlers);
    const pending = clientOf(slow.baseUrl, slow.token).chat.completions.create(ask);
    // The slow job answers only when released; a gateway with one queue for all jobs would hang here.
    const waited = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 3000));
    const got = await Promise.race([clientOf(fast.baseUrl, fast.token).chat.completions.create(ask), waited]);
    release();
    expect(got).to.not.equal('blocked');
    expect((await pending).choices[0]?.message.content).to.equal('slow');
  });

  it('answers a failing handler with a 500 and keeps serving the job', async () => {
    let calls = 0;
    const job = register(echoJob(async () => (++calls === 1 ? Promise.reject(new TypeError('recorder bug')) : answer('fine'))).handlers);
    const client = clientOf(job.baseUrl, job.token);
    const err = await failure(client.chat.completions.create(ask));
    expect(err).to.be.instanceOf(APIError).and.include({ status: 500, code: 'internal_error', type: 'evalog_error' });
    expect((await client.chat.completions.create(ask)).choices[0]?.message.content).to.equal('fine');
  });

  it('lists no models (some clients probe), and 404s paths it does not serve', async () => {
    const job = register(echoJob().handlers);
    const list = await clientOf(job.baseUrl, job.token).models.list();
    expect(list.data).to.deep.equal([]);
    const auth = { authorization: `Bearer ${job.token}` };
    expect((await fetch(`${job.baseUrl}/embeddings`, { method: 'POST', headers: auth, body: '{}' })).status).to.equal(404);
    expect((await fetch(`${job.baseUrl}/chat/completions`, { headers: auth })).status).to.equal(405);
    expect((await fetch(new URL('/', job.baseUrl))).status).to.equal(404);
  });

  it("routes the MCP URL to the job's tools, with its token", async () => {
    const { handlers, tools } = echoJob();
    const job = register(handlers);
    const other = register(echoJob().handlers);
    const connect = async (token: string) => {
      const client = new Client({ name: 'test-agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(job.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      return client;
    };
    const client = await connect(job.token);
    expect((await client.listTools()).tools.map((t) => t.name)).to.deep.equal(['ls']);
    const result = await client.callTool({ name: 'ls', arguments: { all: true } });
    expect(result.content).to.deep.equal([{ type: 'text', text: 'ran ls' }]);
    expect(tools).to.deep.equal([{ name: 'ls', args: { all: true } }]);
    await client.close();
    const refused = await connect(other.token).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).to.be.instanceOf(StreamableHTTPError).and.include({ code: 401 });
    expect(String(refused)).to.include('invalid_api_key');
    expect(tools).to.have.length(1);
  });
});

describe('agent gateway close', () => {
  it('ends open connections, stops listening and registers no more jobs', async () => {
    const gateway = await startAgentGateway();
    const job = gateway.register(echoJob().handlers);
    const client = clientOf(job.baseUrl, job.token);
    await client.chat.completions.create(ask); // leaves a keep-alive connection open
    const started = performance.now();
    await gateway.close();
    expect(performance.now() - started).to.be.below(1000);
    expect(await failure(client.chat.completions.create(ask))).to.be.instanceOf(APIConnectionError);
    expect(() => gateway.register(echoJob().handlers)).to.throw(GatewayClosedError);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'chai';
import { createMcpHandler } from '../../src/harness/external/mcp.js';
import type { AgentJobHandlers, AgentToolReply } from '../../src/harness/kernel/agent-gateway.js';
import type { ToolSpec } from '../../src/providers/chat.js';

const TOOLS: ToolSpec[] = [
  {
    name: 'write_file',
    description: 'Write a file of the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'relative path' }, text: { type: 'string' } },
      required: ['path', 'text'],
      additionalProperties: false,
    },
  },
  { name: 'list_files', description: 'List the workspace.', parameters: { type: 'object', properties: {} } },
];

/** A job's handlers as the recorder would be: every call kept, agent mistakes answered as errors. */
function recordingJob(): { handlers: AgentJobHandlers; calls: { name: string; args: unknown }[] } {
  const calls: { name: string; args: unknown }[] = [];
  const handlers: AgentJobHandlers = {
    model: () => Promise.reject(new Error('no model calls in these tests')),
    tools: () => TOOLS,
    callTool: async (name, args): Promise<AgentToolReply> => {
      calls.push({ name, args });
      if (name === 'explode') throw new TypeError('recorder bug');
      if (!TOOLS.some((t) => t.name === name)) return { result: `unknown tool: ${name}`, isError: true };
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return { result: `${name}: arguments must be an object`, isError: true };
      return { result: `${name} ok: ${JSON.stringify(args)}`, isError: false };
    },
  };
  return { handlers, calls };
}

async function serve(handlers: AgentJobHandlers): Promise<{ url: string; server: Server }> {
  const handle = createMcpHandler(handlers);
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/jobs/k1/mcp`, server };
}

const STDLIB_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

/** One POST as a Python agent using urllib sends it: no session, no SDK. */
async function rawPost(
  url: string,
  message: unknown,
  headers: Record<string, string> = STDLIB_HEADERS,
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

function toolCall(id: number, params: Record<string, unknown>): unknown {
  return { jsonrpc: '2.0', id, method: 'tools/call', params };
}

describe('external agents: tools over MCP (streamable HTTP)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it("serves the SDK's own client: the tool list as the suite gives it, and calls answered as results", async () => {
    const job = recordingJob();
    const served = await serve(job.handlers);
    server = served.server;
    const client = new Client({ name: 'test-agent', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      expect(client.getServerVersion()?.name).to.equal('evalog');
      const { tools } = await client.listTools();
      expect(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))).to.deep.equal(
        TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
      );

      const ok = await client.callTool({ name: 'write_file', arguments: { path: 'a.txt', text: 'hi' } });
      expect(ok).to.deep.equal({ content: [{ type: 'text', text: 'write_file ok: {"path":"a.txt","text":"hi"}' }], isError: false });
      const bad = await client.callTool({ name: 'delete_everything', arguments: {} });
      expect(bad).to.deep.equal({ content: [{ type: 'text', text: 'unknown tool: delete_everything' }], isError: true });
      expect(job.calls).to.deep.equal([
        { name: 'write_file', args: { path: 'a.txt', text: 'hi' } },
        { name: 'delete_everything', args: {} },
      ]);
    } finally {
      await client.close();
    }
  });

  it('speaks plain JSON-RPC over HTTP to a stdlib client, and every malformed call reaches the job as a tool result', async () => {
    const job = recordingJob();
    const served = await serve(job.handlers);
    server = served.server;

    const init = await rawPost(served.url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'python_agent', version: '1' } },
    });
    expect(init.status).to.equal(200);
    expect(init.headers.get('content-type')).to.match(/^application\/json/);
    expect(init.headers.get('mcp-session-id')).to.equal(null);
    expect(init.body).to.nested.include({ 'result.protocolVersion': '2025-06-18', 'result.serverInfo.name': 'evalog', id: 1 });

    const initialized = await rawPost(served.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(initialized).to.include({ status: 202, body: null });

    // Later requests carry no session id; the negotiated version header is accepted.
    const list = await rawPost(served.url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...STDLIB_HEADERS, 'MCP-Protocol-Version': '2025-06-18' });
    expect(list.status).to.equal(200);
    expect(list.body).to.deep.equal({
      jsonrpc: '2.0',
      id: 2,
      result: { tools: TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })) },
    });

    const calls = [
      toolCall(3, { name: 'write_file', arguments: '{"path": "a.txt", "text": "hi"}' }),
      toolCall(4, { name: 'list_files' }),
      toolCall(5, { name: 'write_file', arguments: ['a.txt', 'hi'] }),
      toolCall(6, { name: 'rm_rf', arguments: { path: '/' } }),
      toolCall(7, { arguments: {} }),
    ];
    const answers = [];
    for (const call of calls) answers.push(await rawPost(served.url, call));
    expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body)).to.deep.equal([
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'write_file: arguments must be an object' }], isError: true } },
      { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'list_files: arguments must be an object' }], isError: true } },
      { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'write_file: arguments must be an object' }], isError: true } },
      { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'unknown tool: rm_rf' }], isError: true } },
      { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'unknown tool: ' }], isError: true } },
    ]);
    expect(job.calls).to.deep.equal([
      { name: 'write_file', args: '{"path": "a.txt", "text": "hi"}' },
      { name: 'list_files', args: undefined },
      { name: 'write_file', args: ['a.txt', 'hi'] },
      { name: 'rm_rf', args: { path: '/' } },
      { name: '', args: {} },
    ]);
  });

  it('answers a callTool that throws as an error result naming it, and goes on serving', async () => {
    const job = recordingJob();
    const served = await serve(job.handlers);
    server = served.server;
    const thrown = await rawPost(served.url, toolCall(1, { name: 'explode', arguments: {} }));
    expect(thrown.body).to.deep.equal({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'evalog failed to run tool "explode": TypeError: recorder bug' }], isError: true },
    });
    const after = await rawPost(served.url, toolCall(2, { name: 'list_files', arguments: {} }));
    expect(after.body).to.nested.include({ 'result.isError': false });
    expect(job.calls.map((c) => c.name)).to.deep.equal(['explode', 'list_files']);
  });

  it('refuses what a stateless endpoint cannot serve, with the status the header comment promises', async () => {
    const job = recordingJob();
    const served = await serve(job.handlers);
    server = served.server;
    const get = await fetch(served.url, { headers: { Accept: 'text/event-stream' } });
    expect(get.status).to.equal(405);
    expect(get.headers.get('allow')).to.equal('POST');
    await get.body?.cancel();
    const jsonOnly = await rawPost(served.url, toolCall(1, { name: 'list_files', arguments: {} }), {
      'Content-Type': 'application/json',
      Accept: 'application/json',
    });
    expect(jsonOnly.status).to.equal(406);
    const oldVersion = await rawPost(served.url, toolCall(2, { name: 'list_files', arguments: {} }), {
      ...STDLIB_HEADERS,
      'MCP-Protocol-Version': '1999-01-01',
    });
    expect(oldVersion.status).to.equal(400);
    const unknownMethod = await rawPost(served.url, { jsonrpc: '2.0', id: 3, method: 'prompts/list' });
    expect(unknownMethod.body).to.nested.include({ 'error.code': -32601 });
    expect(job.calls).to.deep.equal([]);
  });
});

// A job's tools over MCP (streamable HTTP, stateless, JSON responses), for the gateway's
// `/jobs/KEY/mcp` route. Every `tools/call` reaches the job's `callTool`, however malformed,
// because the job records each call: an agent's mistake is a recorded error it is told about,
// never a protocol error that leaves no trace.
//
// The raw exchange a client without an MCP library needs (Python's standard library, say):
//   POST EVALOG_MCP_URL with headers
//     Content-Type: application/json
//     Accept: application/json, text/event-stream     (both, or the answer is 406)
//     Authorization: Bearer OPENAI_API_KEY             (checked by the gateway)
//   and one JSON-RPC message as the body. No Mcp-Session-Id: the server is stateless, sends none
//   and wants none. An MCP-Protocol-Version header is optional; if sent it must be a supported
//   version (e.g. the one initialize answered), or the answer is 400.
//   1. {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
//      "capabilities":{},"clientInfo":{"name":"my-agent","version":"1"}}}
//      → 200, JSON {"result":{"protocolVersion":"2025-06-18",...}} (a supported version is echoed,
//      an unknown one answered with the latest, 2025-11-25)
//   2. {"jsonrpc":"2.0","method":"notifications/initialized"} → 202, empty body
//   3. {"jsonrpc":"2.0","id":2,"method":"tools/list"} → {"result":{"tools":[{name,description,inputSchema}]}}
//   4. {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"N","arguments":{...}}}
//      → {"result":{"content":[{"type":"text","text":"..."}],"isError":false}}
//   Every answer with a body is `Content-Type: application/json`. GET and DELETE answer 405.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { type CallToolResult, ErrorCode, type JSONRPCRequest, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSpec } from '../../providers/chat.js';
import type { AgentJobHandlers } from '../kernel/agent-gateway.js';

/** An HTTP handler that serves one job's tools over MCP; it reads the request body itself. */
export function createMcpHandler(handlers: AgentJobHandlers): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const info = { name: 'evalog', version: evalogVersion() };
  return async (req, res) => {
    // Stateless: a GET would open a server-to-client stream that no later request could use.
    if (req.method !== 'POST') {
      req.resume();
      sendJsonRpcError(res, 405, 'Method not allowed: this MCP endpoint is stateless; POST JSON-RPC messages', { Allow: 'POST' });
      return;
    }
    // The SDK's stateless mode: a fresh transport per request, and so a fresh server to own it.
    const server = mcpServer(handlers, info);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      // A failure of the SDK or of evalog, not of the agent: answer it, and keep it out of the HTTP server.
      if (res.headersSent) res.end();
      else sendJsonRpcError(res, 500, `evalog's MCP endpoint failed: ${describe(error)}`);
    }
  };
}

function mcpServer(handlers: AgentJobHandlers, info: { name: string; version: string }): Server {
  const server = new Server(info, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: handlers.tools().map(mcpTool) }));
  // tools/call is deliberately not a registered handler: the SDK validates a registered one's
  // params (a string or array `arguments` is refused as -32602 before any handler runs). The
  // fallback sees the request as it came off the wire, so every call reaches `callTool`.
  server.fallbackRequestHandler = async (request) => {
    if (request.method !== 'tools/call') throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
    return callTool(handlers, request.params);
  };
  return server;
}

/** The ToolSpec's own JSON Schema is the input schema; MCP requires it to describe an object. */
function mcpTool(spec: ToolSpec): Tool {
  return { name: spec.name, description: spec.description, inputSchema: { type: 'object', ...spec.parameters } };
}

async function callTool(handlers: AgentJobHandlers, params: JSONRPCRequest['params']): Promise<CallToolResult> {
  const name = toolName(params?.name);
  try {
    // `arguments` exactly as sent: undefined when absent, or a string, array, null ... for the job to judge.
    const reply = await handlers.callTool(name, params?.arguments);
    return { content: [{ type: 'text', text: reply.result }], isError: reply.isError };
  } catch (error) {
    // `callTool` never throws for agent mistakes, so this is an evalog bug: the agent is told, the job goes on.
    return { content: [{ type: 'text', text: `evalog failed to run tool ${JSON.stringify(name)}: ${describe(error)}` }], isError: true };
  }
}

/** A missing name is '' and a non-string one its JSON text, so the job records it as an unknown tool. */
function toolName(name: unknown): string {
  if (typeof name === 'string') return name;
  return name === undefined ? '' : JSON.stringify(name);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function sendJsonRpcError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function evalogVersion(): string {
  try {
    const pkg: unknown = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    if (typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string') return pkg.version;
  } catch {
    // The version is informative only; a missing package.json must not stop a job.
  }
  return 'unknown';
}

// The loopback gateway of external-agent jobs: one HTTP server per process, bound to 127.0.0.1,
// that routes each job's OpenAI-compatible model requests and MCP tool calls to the handlers the
// job registered. A job is reached by an unguessable key in the URL and only with its own token,
// so one agent can neither read nor write another job's record.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from './mcp.js';
import { completionBody, completionStream, failureBody, openAiError, parseAgentRequest } from './proxy.js';
import type { AgentAttribution, AgentEndpoints, AgentGateway, AgentJobHandlers, AgentModelReply, AgentModelRequest } from './types.js';

/** Largest request body accepted (a long conversation with tool results fits; a runaway agent does not). */
const BODY_LIMIT = 16 * 1024 * 1024;
const ATTRIBUTIONS: readonly string[] = ['main', 'query', 'child'] satisfies AgentAttribution[];
const isAttribution = (a: string): a is AgentAttribution => ATTRIBUTIONS.includes(a);

type McpHandler = ReturnType<typeof createMcpHandler>;

/** `register` was called after `close`. */
export class GatewayClosedError extends Error {
  override name = 'GatewayClosedError';
  constructor() {
    super('the agent gateway is closed');
  }
}

interface Job {
  readonly handlers: AgentJobHandlers;
  readonly token: Buffer;
  /**
   * The tail of this job's model requests. The job matches the n-th request the agent sends to
   * the n-th call of its record (resume and replay), so requests reach `handlers.model` one at a
   * time in arrival order, even from an agent that sends several at once. MCP calls are not queued
   * here: `handlers.callTool` orders them itself.
   */
  queue: Promise<unknown>;
  closed: boolean;
  /** Made at the job's first MCP request: a job whose agent uses no tools never builds one. */
  mcp?: McpHandler;
}

type Route = { kind: 'chat'; attribution: string | null } | { kind: 'models' } | { kind: 'mcp' };

const ROUTE = /^\/jobs\/([A-Za-z0-9_-]+)(?:\/a\/([^/]+))?(\/v1\/chat\/completions|\/v1\/models|\/mcp)$/;

/** The job key and route of a request path; `route` is null for a path under a job that names nothing. */
function matchRoute(pathname: string): { key: string; route: Route | null } | null {
  const m = ROUTE.exec(pathname);
  if (!m) {
    const key = /^\/jobs\/([A-Za-z0-9_-]+)(?:\/|$)/.exec(pathname)?.[1];
    return key ? { key, route: null } : null;
  }
  const [, key = '', attribution, tail] = m;
  if (tail === '/mcp') return { key, route: attribution === undefined ? { kind: 'mcp' } : null };
  if (tail === '/v1/models') return { key, route: { kind: 'models' } };
  return { key, route: { kind: 'chat', attribution: attribution ?? null } };
}

function authorized(header: string | undefined, token: Buffer): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
  if (given === undefined) return false;
  const bytes = Buffer.from(given, 'utf8');
  return bytes.length === token.length && timingSafeEqual(bytes, token);
}

function send(res: ServerResponse, status: number, body: string, contentType: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}
const sendJson = (res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>) =>
  send(res, status, JSON.stringify(body), 'application/json', headers);
const sendError = (res: ServerResponse, status: number, code: string, message: string, headers?: Record<string, string>) =>
  sendJson(res, status, openAiError(message, 'invalid_request_error', code), headers);

const TOO_LARGE = Symbol('too large');

/** The whole body; past `limit` the rest is read and dropped, so the 413 reaches a client still sending. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  if (Number(req.headers['content-length']) > limit) return Promise.resolve(TOO_LARGE);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return;
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      chunks.length = 0;
      resolve(TOO_LARGE);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => reject(new Error('the client closed the request')));
  });
}

/** Starts the gateway on an ephemeral port of 127.0.0.1 (never another interface). */
export async function startAgentGateway(): Promise<AgentGateway> {
  const jobs = new Map<string, Job>();
  // Keys of unregistered jobs, so a late request of an ended job is told its token expired (401)
  // rather than that the job never existed (404). One short string per job of the process.
  const ended = new Set<string>();
  let closed = false;

  const server = createServer((req, res) => {
    serve(req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, openAiError(`evalog could not answer: ${message}`, 'evalog_error', 'internal_error'));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    const match = matchRoute(pathname);
    if (!match) return sendError(res, 404, 'not_found', `no such route: ${req.method} ${pathname}`);
    const job = jobs.get(match.key);
    if (!job) {
      if (ended.has(match.key)) return sendError(res, 401, 'invalid_api_key', 'this job has ended: its token is no longer accepted');
      return sendError(res, 404, 'not_found', 'no such job on this gateway');
    }
    if (!authorized(req.headers.authorization, job.token)) {
      return sendError(res, 401, 'invalid_api_key', "missing or wrong token: send this job's OPENAI_API_KEY as 'Authorization: Bearer <token>'");
    }
    const { route } = match;
    if (!route) return sendError(res, 404, 'not_found', `no such route: ${req.method} ${pathname}`);
    switch (route.kind) {
      case 'models':
        if (req.method !== 'GET') return sendError(res, 405, 'method_not_allowed', 'use GET for /v1/models', { allow: 'GET' });
        // Some clients probe the list before calling; the run's model is chosen by evalog, not the agent.
        return sendJson(res, 200, { object: 'list', data: [] });
      case 'mcp':
        // Every method goes to the MCP handler, which answers the ones it does not serve itself.
        job.mcp ??= createMcpHandler(job.handlers);
        return job.mcp(req, res);
      case 'chat':
        if (req.method !== 'POST') return sendError(res, 405, 'method_not_allowed', 'use POST for /v1/chat/completions', { allow: 'POST' });
        return chat(req, res, job, route.attribution);
      default:
        return route satisfies never;
    }
  }

  async function chat(req: IncomingMessage, res: ServerResponse, job: Job, fromPath: string | null): Promise<void> {
    const header = req.headers['x-evalog-attribution'];
    const attribution = fromPath ?? (header === undefined ? 'main' : String(header).trim());
    if (!isAttribution(attribution)) {
      const where = fromPath === null ? 'the X-Evalog-Attribution header' : 'the URL segment /a/<attribution>/';
      return sendError(res, 400, 'invalid_attribution', `${where} must be main, query or child (got "${attribution}")`);
    }
    const raw = await readBody(req, BODY_LIMIT);
    if (raw === TOO_LARGE) return sendError(res, 413, 'request_too_large', `the request body is larger than ${BODY_LIMIT} bytes`, { connection: 'close' });
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendError(res, 400, 'invalid_request', 'the request body is not JSON');
    }
    const request = parseAgentRequest(body, attribution);
    if ('error' in request) return sendError(res, 400, 'invalid_request', request.error);
    const reply = await enqueue(job, request);
    if (reply === null) return sendError(res, 401, 'invalid_api_key', 'this job has ended: its token is no longer accepted');
    if (res.destroyed) return; // the agent gave up waiting; the job has recorded the call all the same
    if (!reply.ok) return sendJson(res, reply.status, failureBody(reply));
    if (request.stream)
      return send(res, 200, completionStream(reply, request.includeUsage), 'text/event-stream; charset=utf-8', { 'cache-control': 'no-cache' });
    return sendJson(res, 200, completionBody(reply));
  }

  /** Runs `request` after every earlier request of the job has been answered; null once the job has ended. */
  function enqueue(job: Job, request: AgentModelRequest): Promise<AgentModelReply | null> {
    const turn = job.queue.then(() => (job.closed ? null : job.handlers.model(request)));
    job.queue = turn.catch(() => undefined);
    return turn;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    register(handlers: AgentJobHandlers): AgentEndpoints {
      if (closed) throw new GatewayClosedError();
      const key = randomBytes(12).toString('base64url');
      const token = `evalog-job-${randomBytes(32).toString('base64url')}`;
      const job: Job = { handlers, token: Buffer.from(token, 'utf8'), queue: Promise.resolve(), closed: false };
      jobs.set(key, job);
      const root = `http://127.0.0.1:${port}/jobs/${key}`;
      return {
        baseUrl: `${root}/v1`,
        anthropicBaseUrl: root,
        attributionUrl: (a: AgentAttribution) => `${root}/a/${a}/v1`,
        mcpUrl: `${root}/mcp`,
        token,
        close() {
          job.closed = true;
          jobs.delete(key);
          ended.add(key);
        },
      };
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const job of jobs.values()) job.closed = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Agents' clients keep connections alive; an idle one must not hold the process open.
      server.closeAllConnections();
      await stopped;
    },
  };
}

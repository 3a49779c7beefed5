// The loopback gateway of external-agent jobs: one HTTP server per process, bound to 127.0.0.1,
// that routes each job's model requests (in any protocol an adapter speaks: chat completions,
// Responses, Messages) and MCP tool calls to the handlers the job registered. A job is reached by
// an unguessable key in the URL and only with its own token, so one agent can neither read nor
// write another job's record. Every answer, error or not, is in the protocol's own shape.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorized, BODY_LIMIT, errorProtocolOf, MODEL_PATHS, matchRoute, readBody, sendAnswer, TOO_LARGE, withHeaders, type Route } from './gateway-http.js';
import { createMcpHandler } from './mcp.js';
import { chatAdapter, conversationMemory, countTokensAnswer, messagesAdapter, responsesAdapter } from './protocols/index.js';
import type { ConversationMemory, ProtocolAdapter, WireProtocol } from './protocols/types.js';
import { forwardedHeaders, passThroughRequest } from './pass-through.js';
import type {
  AgentAttribution,
  AgentEndpoints,
  AgentGateway,
  AgentJobHandlers,
  AgentJobOptions,
  AgentModelReply,
  AgentModelRequest,
} from '../kernel/agent-gateway.js';

const ATTRIBUTIONS: readonly string[] = ['main', 'query', 'child'] satisfies AgentAttribution[];
const isAttribution = (a: string): a is AgentAttribution => ATTRIBUTIONS.includes(a);

/** The adapter of each protocol the gateway serves. */
const ADAPTERS: Readonly<Record<WireProtocol, ProtocolAdapter>> = { chat: chatAdapter, responses: responsesAdapter, messages: messagesAdapter };

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
  /** What this agent process was answered, for requests that refer back to it (`previous_response_id`). */
  readonly memory: ConversationMemory;
  /** Made at the job's first MCP request: a job whose agent uses no tools never builds one. */
  mcp?: McpHandler;
  /** Protocols sent to the run's endpoint unchanged, not translated (it speaks them natively). */
  readonly passThrough: ReadonlySet<WireProtocol>;
}

/** How each protocol's clients are told to send the token. */
const TOKEN_HINT: Readonly<Record<WireProtocol, string>> = {
  chat: "send this job's OPENAI_API_KEY as 'Authorization: Bearer <token>'",
  responses: "send this job's OPENAI_API_KEY as 'Authorization: Bearer <token>'",
  messages: "send this job's ANTHROPIC_API_KEY as 'x-api-key: <token>' (or 'Authorization: Bearer <token>')",
};

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
      sendAnswer(res, errorsOf(req).error(500, 'internal_error', `evalog could not answer: ${message}`));
    });
  });

  /** The adapter whose shape a request's errors take (by its path). */
  function errorsOf(req: IncomingMessage): ProtocolAdapter {
    return ADAPTERS[errorProtocolOf(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)];
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
    const errors = errorsOf(req);
    const fail = (status: number, code: string, message: string, headers?: Record<string, string>) => {
      const answer = errors.error(status, code, message);
      sendAnswer(res, headers ? withHeaders(answer, headers) : answer);
    };
    const match = matchRoute(pathname);
    if (!match) return fail(404, 'not_found', `no such route: ${req.method} ${pathname}`);
    const job = jobs.get(match.key);
    if (!job) {
      if (ended.has(match.key)) return fail(401, 'invalid_api_key', 'this job has ended: its token is no longer accepted');
      return fail(404, 'not_found', 'no such job on this gateway');
    }
    if (!authorized(req.headers, job.token)) return fail(401, 'invalid_api_key', `missing or wrong token: ${TOKEN_HINT[errorProtocolOf(pathname)]}`);
    const { route } = match;
    if (!route) return fail(404, 'not_found', `no such route: ${req.method} ${pathname}`);
    switch (route.kind) {
      case 'models':
        if (req.method !== 'GET') return fail(405, 'method_not_allowed', 'use GET for /v1/models', { allow: 'GET' });
        // Some clients probe the list before calling; the run's model is chosen by evalog, not the agent.
        return sendAnswer(res, { status: 200, contentType: 'application/json', body: JSON.stringify({ object: 'list', data: [] }) });
      case 'mcp':
        // Every method goes to the MCP handler, which answers the ones it does not serve itself.
        job.mcp ??= createMcpHandler(job.handlers);
        return job.mcp(req, res);
      case 'count_tokens': {
        if (req.method !== 'POST') return fail(405, 'method_not_allowed', 'use POST for /v1/messages/count_tokens', { allow: 'POST' });
        // A count is no model call: it is answered at once (not queued, not recorded), from the body alone.
        const got = await jsonBody(req, res, messagesAdapter);
        return got ? sendAnswer(res, countTokensAnswer(got.body)) : undefined;
      }
      case 'model': {
        const adapter = ADAPTERS[route.protocol];
        if (req.method !== 'POST') return fail(405, 'method_not_allowed', `use POST for ${MODEL_PATHS[route.protocol]}`, { allow: 'POST' });
        return model(req, res, job, adapter, route);
      }
      default:
        return route satisfies never;
    }
  }

  /** The request's JSON body (and its bytes), or null once an error has been sent. */
  async function jsonBody(req: IncomingMessage, res: ServerResponse, adapter: ProtocolAdapter): Promise<{ body: unknown; raw: Buffer } | null> {
    const raw = await readBody(req, BODY_LIMIT);
    if (raw === TOO_LARGE) {
      sendAnswer(res, withHeaders(adapter.error(413, 'request_too_large', `the request body is larger than ${BODY_LIMIT} bytes`), { connection: 'close' }));
      return null;
    }
    try {
      return { body: JSON.parse(raw.toString('utf8')), raw };
    } catch {
      sendAnswer(res, adapter.error(400, 'invalid_request', 'the request body is not JSON'));
      return null;
    }
  }

  async function model(req: IncomingMessage, res: ServerResponse, job: Job, adapter: ProtocolAdapter, route: Extract<Route, { kind: 'model' }>): Promise<void> {
    const fromPath = route.attribution;
    const header = req.headers['x-evalog-attribution'];
    const attribution = fromPath ?? (header === undefined ? 'main' : String(header).trim());
    if (!isAttribution(attribution)) {
      const where = fromPath === null ? 'the X-Evalog-Attribution header' : 'the URL segment /a/<attribution>/';
      return sendAnswer(res, adapter.error(400, 'invalid_attribution', `${where} must be main, query or child (got "${attribution}")`));
    }
    const got = await jsonBody(req, res, adapter);
    if (!got) return;
    if (job.passThrough.has(route.protocol)) return passThrough(req, res, job, adapter, attribution, got);
    const request = adapter.parse(got.body, attribution, job.memory);
    if ('refused' in request) return sendAnswer(res, adapter.error(request.status, request.code, request.message, request.field));
    const reply = await enqueue(job, request);
    if (reply === null) return sendAnswer(res, adapter.error(401, 'invalid_api_key', 'this job has ended: its token is no longer accepted'));
    if (!reply.ok) return res.destroyed ? undefined : sendAnswer(res, adapter.failure(reply));
    // Remembered even when the agent gave up waiting: the job has recorded the call all the same.
    const answer = adapter.render(reply, request);
    adapter.remember?.(reply, request, job.memory);
    if (res.destroyed) return;
    return sendAnswer(res, answer);
  }

  /**
   * A request in a protocol the run's endpoint speaks: recorded and sent upstream as the agent sent
   * it, its answer (JSON or SSE) given back as the endpoint sent it. Nothing is translated, so
   * nothing is refused but a body that is no JSON object; errors of the job (budget, upstream
   * failure after its retries) still take the protocol's error shape.
   */
  async function passThrough(
    req: IncomingMessage,
    res: ServerResponse,
    job: Job,
    adapter: ProtocolAdapter,
    attribution: AgentAttribution,
    got: { body: unknown; raw: Buffer },
  ): Promise<void> {
    const request = passThroughRequest(adapter.protocol, got.body, got.raw, attribution, forwardedHeaders(req.headers));
    if ('refused' in request) return sendAnswer(res, adapter.error(request.status, request.code, request.message, request.field));
    const reply = await enqueue(job, request);
    if (reply === null) return sendAnswer(res, adapter.error(401, 'invalid_api_key', 'this job has ended: its token is no longer accepted'));
    if (!reply.ok) return res.destroyed ? undefined : sendAnswer(res, adapter.failure(reply));
    if (!reply.native) throw new Error('a pass-through call was answered without the answer it received');
    if (res.destroyed) return;
    const { body, contentType } = reply.native;
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': String(body.length),
      ...(/^text\/event-stream/i.test(contentType) ? { 'cache-control': 'no-cache' } : {}),
    });
    res.end(body);
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
    register(handlers: AgentJobHandlers, options?: AgentJobOptions): AgentEndpoints {
      if (closed) throw new GatewayClosedError();
      const key = randomBytes(12).toString('base64url');
      const token = `evalog-job-${randomBytes(32).toString('base64url')}`;
      const passThrough = new Set(options?.passThrough ?? []);
      const job: Job = { handlers, token: Buffer.from(token, 'utf8'), queue: Promise.resolve(), closed: false, memory: conversationMemory(), passThrough };
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

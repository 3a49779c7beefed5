// The HTTP side of the gateway that knows nothing of jobs: which route a path names, whether a
// request carries a job's token, reading a bounded body and sending an adapter's answer.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { WireAnswer, WireProtocol } from './protocols/types.js';

/** Largest request body accepted (a long conversation with tool results fits; a runaway agent does not). */
export const BODY_LIMIT = 16 * 1024 * 1024;

/** What a job's path names: a model call in one protocol, a token count, the model list or MCP. */
export type Route = { kind: 'model'; protocol: WireProtocol; attribution: string | null } | { kind: 'count_tokens' } | { kind: 'models' } | { kind: 'mcp' };

/** The path (under a job, after any `/a/<attribution>`) of each protocol's model calls. */
export const MODEL_PATHS: Readonly<Record<WireProtocol, string>> = {
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
  messages: '/v1/messages',
};
const MODEL_ROUTES = new Map(Object.entries(MODEL_PATHS).map(([protocol, path]) => [path, protocol as WireProtocol]));

// Messages also without `/v1`: the AI SDK's anthropic provider takes ANTHROPIC_BASE_URL as ending in
// `/v1` (its default does) and appends only `/messages`, so the job root as given lands here.
const ROUTE = /^\/jobs\/([A-Za-z0-9_-]+)(?:\/a\/([^/]+))?(\/v1\/chat\/completions|\/v1\/responses|(?:\/v1)?\/messages(?:\/count_tokens)?|\/v1\/models|\/mcp)$/;

/** The job key and route of a request path; `route` is null for a path under a job that names nothing. */
export function matchRoute(pathname: string): { key: string; route: Route | null } | null {
  const m = ROUTE.exec(pathname);
  if (!m) {
    const key = /^\/jobs\/([A-Za-z0-9_-]+)(?:\/|$)/.exec(pathname)?.[1];
    return key ? { key, route: null } : null;
  }
  const [, key = '', attribution, matched = ''] = m;
  const tail = matched.startsWith('/messages') ? `/v1${matched}` : matched;
  if (tail === '/mcp') return { key, route: attribution === undefined ? { kind: 'mcp' } : null };
  if (tail === '/v1/models') return { key, route: { kind: 'models' } };
  // A token count is no model call: it is answered at once, whatever the attribution.
  if (tail === '/v1/messages/count_tokens') return { key, route: { kind: 'count_tokens' } };
  return { key, route: { kind: 'model', protocol: MODEL_ROUTES.get(tail)!, attribution: attribution ?? null } };
}

/** The protocol whose error shape a path's errors take: Anthropic's under `/v1/messages`, else OpenAI's. */
export function errorProtocolOf(pathname: string): WireProtocol {
  if (/\/messages(?:\/|$)/.test(pathname)) return 'messages';
  return /\/v1\/responses$/.test(pathname) ? 'responses' : 'chat';
}

/** Whether the request carries `token`: as `Authorization: Bearer` (OpenAI's clients, MCP) or `x-api-key` (Anthropic's). */
export function authorized(headers: IncomingHttpHeaders, token: Buffer): boolean {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1];
  const apiKey = headers['x-api-key'];
  const given = [bearer, typeof apiKey === 'string' ? apiKey.trim() : undefined];
  return given.some((g) => {
    if (g === undefined) return false;
    const bytes = Buffer.from(g, 'utf8');
    return bytes.length === token.length && timingSafeEqual(bytes, token);
  });
}

/** Sends an answer with its exact bytes and length. */
export function sendAnswer(res: ServerResponse, answer: WireAnswer): void {
  const bytes = Buffer.from(answer.body, 'utf8');
  res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': String(bytes.length), ...answer.headers });
  res.end(bytes);
}

/** `answer` with more headers. */
export const withHeaders = (answer: WireAnswer, headers: Record<string, string>): WireAnswer => ({ ...answer, headers: { ...answer.headers, ...headers } });

/** A body past the limit. */
export const TOO_LARGE = Symbol('too large');

/** The whole body; past `limit` the rest is read and dropped, so the 413 reaches a client still sending. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | typeof TOO_LARGE> {
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

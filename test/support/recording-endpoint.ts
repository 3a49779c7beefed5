/**
 * A real HTTP server on loopback that records every request (path, authorization, the call-key
 * header, the JSON body exactly as received) and answers each with what the test's `reply`
 * chooses: a chat completion, a malformed body, an error status. For tests of what evalog sends
 * and how it reads replies; GET /models answers 404, so the endpoint is not taken for evalog's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  /** The `X-Evalog-Call` header: `<runId>/<jobId>/<callId>`. */
  callKey: string | null;
  /** The raw body text, and its JSON (null when it was not JSON). */
  raw: string;
  body: Record<string, unknown> | null;
  /** Milliseconds since the server started (for the waits between attempts). */
  atMs: number;
}

/** What the server answers: a status, a body (an object is sent as JSON, a string as it is) and headers. */
export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RecordingEndpoint {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A chat completion with the given content and usage. */
export function completion(content: unknown, usage: unknown = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }, model = 'recorded-model'): Reply {
  return {
    body: {
      id: 'chatcmpl-recorded',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      ...(usage === undefined ? {} : { usage }),
    },
  };
}

/** Starts the server; `reply` decides each chat request's answer from the request (it may wait, so a test can interrupt a call in flight). */
export async function startRecordingEndpoint(reply: (req: RecordedRequest) => Reply | Promise<Reply>): Promise<RecordingEndpoint> {
  const requests: RecordedRequest[] = [];
  const started = performance.now();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        body = null;
      }
      const header = (n: string) => (typeof req.headers[n] === 'string' ? (req.headers[n] as string) : null);
      const path = (req.url ?? '').split('?')[0]!;
      if (req.method === 'GET') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
        return;
      }
      const r: RecordedRequest = {
        method: req.method ?? '',
        path,
        authorization: header('authorization'),
        callKey: header('x-evalog-call'),
        raw,
        body,
        atMs: performance.now() - started,
      };
      requests.push(r);
      void Promise.resolve(reply(r)).then((out) => {
        const text = typeof out.body === 'string' ? out.body : JSON.stringify(out.body);
        if (!res.destroyed) res.writeHead(out.status ?? 200, { 'content-type': 'application/json', ...(out.headers ?? {}) }).end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

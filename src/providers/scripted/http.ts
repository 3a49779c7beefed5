import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request body beyond the server's limit; answered with a 413. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/** Reads the whole request body as UTF-8, refusing more than `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(`request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes a JSON response with an exact content-length (no chunked encoding, so bytes are stable). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendText(res, status, JSON.stringify(body), 'application/json', headers);
}

/** Writes a complete response whose body is `text`. */
export function sendText(res: ServerResponse, status: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
  const bytes = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'content-type': contentType, 'content-length': String(bytes.length), ...headers });
  res.end(bytes);
}

/** An OpenAI-style error body: `{ error: { message, type, param, code } }`. */
export function errorBody(message: string, type: string, param: string | null = null, code: string | null = null) {
  return { error: { message, type, param, code } };
}

/** Sleeps `ms`, resolving false early if `signal` aborts (the server is closing). */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!signal.aborted);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

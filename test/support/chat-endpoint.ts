import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A minimal OpenAI-compatible chat endpoint on loopback that counts what reaches it. */
export interface ChatEndpoint {
  url: string;
  /** POST /v1/chat/completions requests received. */
  readonly calls: number;
  /** Bodies received, in arrival order. */
  readonly bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

/**
 * Starts the endpoint. `reply(lastUserMessage)` gives the answer's content, or a number for an
 * HTTP error status of that request (e.g. 400: a client error, not retried). `delayMs` holds each answer that long.
 */
export async function startChatEndpoint(reply: (prompt: string) => string | number, options: { delayMs?: number } = {}): Promise<ChatEndpoint> {
  const bodies: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as { model: string; messages: { role: string; content: string }[] };
      bodies.push(body);
      const prompt = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const answer = reply(prompt);
      if (typeof answer === 'number') {
        res.writeHead(answer, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'refused by the test endpoint' } }));
        return;
      }
      const completion = {
        id: `cmpl-${bodies.length}`,
        object: 'chat.completion',
        model: body.model,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: answer } }],
        usage: { prompt_tokens: 11, completion_tokens: 5, total_tokens: 16 },
      };
      const send = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
      if (options.delayMs) setTimeout(send, options.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get calls() {
      return bodies.length;
    },
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

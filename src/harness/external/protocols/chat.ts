// OpenAI chat completions as a protocol adapter: proxy.ts's parser and renderers, byte for byte.
// The agent's request is already the upstream's protocol, so nothing is translated and nothing is
// recorded beside it (no `protocol`, no `received`): a chat agent's record is what it always was.
import { completionBody, completionStream, failureBody, openAiError, parseAgentRequest } from './chat-wire.js';
import type { ProtocolAdapter, WireAnswer } from './types.js';

/** A JSON answer; the body's bytes are `JSON.stringify`'s, as the gateway always sent them. */
export function jsonAnswer(status: number, body: unknown, headers?: Record<string, string>): WireAnswer {
  return { status, contentType: 'application/json', body: JSON.stringify(body), ...(headers ? { headers } : {}) };
}

/** An SSE answer, never cached by a proxy between the agent and the gateway. */
export function sseAnswer(body: string): WireAnswer {
  return { status: 200, contentType: 'text/event-stream; charset=utf-8', body, headers: { 'cache-control': 'no-cache' } };
}

/**
 * An OpenAI-shaped gateway error. The type says whose fault it is: the request's (4xx,
 * `invalid_request_error`) or evalog's (5xx, `evalog_error`); `param` names the refused field.
 */
export function openAiGatewayError(status: number, code: string, message: string, field?: string): WireAnswer {
  const body = openAiError(message, status >= 500 ? 'evalog_error' : 'invalid_request_error', code);
  if (field) body.error.param = field;
  return jsonAnswer(status, body);
}

/** The chat completions adapter (`POST …/v1/chat/completions`). */
export const chatAdapter: ProtocolAdapter = {
  protocol: 'chat',
  parse(body, attribution) {
    const request = parseAgentRequest(body, attribution);
    // The parser's message starts with the field it names; the chat error keeps `param: null`, as before.
    if ('error' in request) return { refused: true, status: 400, code: 'invalid_request', field: '', message: request.error };
    return request;
  },
  render(reply, request) {
    if (request.stream) return sseAnswer(completionStream(reply, request.includeUsage));
    return jsonAnswer(200, completionBody(reply));
  },
  failure: (reply) => jsonAnswer(reply.status, failureBody(reply)),
  error: (status, code, message, field) => openAiGatewayError(status, code, message, field),
};

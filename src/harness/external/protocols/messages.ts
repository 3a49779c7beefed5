// Anthropic Messages as a protocol adapter (`POST …/v1/messages`, and `…/v1/messages/count_tokens`):
// the request translated onto chat completions (messages-parse.ts, the one step a native
// pass-through upstream would replace), the reply rendered as a `message` object or its SSE
// events, errors in Anthropic's `{type:"error", error:{type, message}}` shape. Messages refers to
// no earlier answer (the agent sends the whole conversation), so the adapter remembers nothing.
import { canonicalJson } from '../../../core/index.js';
import { translateMessagesBody, parseMessagesRequest } from './messages-parse.js';
import { isRefusal } from './messages-refuse.js';
import { errorAnswer, errorType, failureAnswer, messageBody, usageHeaders } from './messages-render.js';
import { messageStream } from './messages-stream.js';
import type { ProtocolAdapter, WireAnswer } from './types.js';

/** Anthropic's own error types: a code that is one of them is kept, any other code maps from the status. */
const ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/** The Messages adapter. */
export const messagesAdapter: ProtocolAdapter = {
  protocol: 'messages',
  parse: (body, attribution) => parseMessagesRequest(body, attribution),
  render(reply, request) {
    const headers = usageHeaders(reply.usage);
    if (request.stream) {
      return { status: 200, contentType: 'text/event-stream; charset=utf-8', body: messageStream(reply), headers: { 'cache-control': 'no-cache', ...headers } };
    }
    const answer: WireAnswer = { status: 200, contentType: 'application/json', body: JSON.stringify(messageBody(reply)) };
    if (Object.keys(headers).length > 0) answer.headers = headers;
    return answer;
  },
  failure: failureAnswer,
  // Anthropic's error body has no field path: the message names the field (it starts with it).
  error: (status, code, message) => errorAnswer(status, ERROR_TYPES.has(code) ? code : errorType(status), message),
};

/** Characters per token of countTokensAnswer's estimate (the usual rule of thumb for English and code). */
export const CHARS_PER_TOKEN = 4;

/**
 * The answer to `POST /v1/messages/count_tokens`: `{input_tokens}` estimated, not counted. No
 * tokenizer of the run's model is at hand (and the count must not cost a model call), so it is
 * ceil(characters / CHARS_PER_TOKEN) of the canonical JSON of the translated messages and tools,
 * the request the upstream would get: deterministic, of the right order of size, and not a
 * provider's count. A body the create endpoint would refuse is refused the same way.
 */
export function countTokensAnswer(body: unknown): WireAnswer {
  const translated = translateMessagesBody(body, true);
  if (isRefusal(translated)) return messagesAdapter.error(translated.status, translated.code, translated.message, translated.field);
  const chars = canonicalJson({ messages: translated.messages, tools: translated.tools }).length;
  return { status: 200, contentType: 'application/json', body: JSON.stringify({ input_tokens: Math.ceil(chars / CHARS_PER_TOKEN) }) };
}

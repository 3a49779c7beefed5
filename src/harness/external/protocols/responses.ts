// OpenAI Responses as a protocol adapter (`POST …/v1/responses`): the request translated onto chat
// completions (responses-parse.ts, the one step a native pass-through upstream would replace), the
// reply rendered as a `response` object or its typed SSE events, errors in OpenAI's shape. A
// reply's conversation and items are remembered, so `previous_response_id` and `item_reference`
// resolve within the agent's process.
import type { ChatMessage } from '../../../providers/chat.js';
import { failureBody } from './chat-wire.js';
import { jsonAnswer, openAiGatewayError, sseAnswer } from './chat.js';
import { refusing } from './refusal.js';
import { appendMessage, itemKey, type WireMessage } from './responses-input.js';
import { hasInstructions, responseKey, responsesToChat } from './responses-parse.js';
import { replyMessages, responseBody, responseIds } from './responses-render.js';
import { responseStream } from './responses-stream.js';
import type { ProtocolAdapter } from './types.js';

/** The Responses adapter. */
export const responsesAdapter: ProtocolAdapter = {
  protocol: 'responses',
  parse: (body, attribution, memory) => refusing(() => responsesToChat(body, attribution, memory)),
  render(reply, request) {
    if (request.stream) return sseAnswer(responseStream(reply, request));
    return jsonAnswer(200, responseBody(reply, request));
  },
  failure: (reply) => jsonAnswer(reply.status, failureBody(reply)),
  error: (status, code, message, field) => openAiGatewayError(status, code, message, field),
  remember(reply, request, memory) {
    const items = replyMessages(reply, responseIds(reply));
    for (const { id, message } of items) memory.remember(itemKey(id), [message]);
    // The conversation goes on without this request's instructions: a request that continues it brings its own, as OpenAI's do.
    const context = hasInstructions(request.received ?? {}) ? request.messages.slice(1) : [...request.messages];
    const conversation = context as unknown as WireMessage[];
    for (const { message } of items) appendMessage(conversation, message as unknown as WireMessage);
    memory.remember(responseKey(responseIds(reply).response), conversation as unknown as ChatMessage[]);
  },
};

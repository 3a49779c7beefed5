// An Anthropic Messages body (POST /v1/messages, or /v1/messages/count_tokens) parsed and
// translated onto the chat completion request the job records and sends upstream. Pure and
// deterministic: the same body always gives the same request, so replay can compare it.
import type { ChatMessage, ToolSpec } from '../../../providers/chat.js';
import type { AgentAttribution, AgentModelRequest } from '../../kernel/agent-gateway.js';
import { translateConversation } from './messages-content.js';
import { isAbsent, isObject, isRefusal, refusal } from './messages-refuse.js';
import { RECORDED_ONLY, translateSettings } from './messages-settings.js';
import { translateTools, translateToolChoice } from './messages-tools.js';
import type { WireRefusal } from './types.js';

/** Fields of a count_tokens body (Anthropic's MessageCountTokensParams, and the beta context_management). */
const COUNT_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'output_config', 'context_management', ...RECORDED_ONLY]);
/** Fields of a create body: the count fields, the generation settings, and `container` (refused when set). */
const CREATE_FIELDS = new Set([...COUNT_FIELDS, 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream', 'container']);

/** A Messages body translated: what the upstream gets, whether the agent asked for a stream. */
export interface TranslatedMessages {
  messages: ChatMessage[];
  tools: ToolSpec[];
  params: Record<string, unknown>;
  stream: boolean;
}

/** Translates a create (or, with `counting`, a count_tokens) body; a refusal names the first field it cannot carry. */
export function translateMessagesBody(body: unknown, counting = false): TranslatedMessages | WireRefusal {
  if (!isObject(body)) return refusal('body', 'the request body must be a JSON object');
  const fields = counting ? COUNT_FIELDS : CREATE_FIELDS;
  // Sorted, so the field named does not depend on the order the client wrote its keys in.
  const unknown = Object.keys(body)
    .sort()
    .find((k) => !fields.has(k));
  if (unknown !== undefined) return refusal(unknown, `is not a Messages ${counting ? 'count_tokens ' : ''}field evalog can carry onto chat completions`);
  if (typeof body.model !== 'string' || body.model === '') return refusal('model', 'is required: a non-empty string');
  if (isAbsent(body.messages)) return refusal('messages', 'is required: an array of messages');
  const messages = translateConversation(body.system, body.messages);
  if (isRefusal(messages)) return messages;
  const tools = translateTools(body.tools);
  if (isRefusal(tools)) return tools;
  const choice = translateToolChoice(body.tool_choice);
  if (isRefusal(choice)) return choice;
  const settings = translateSettings(body, counting);
  if (isRefusal(settings)) return settings;
  if (!isAbsent(body.stream) && typeof body.stream !== 'boolean') return refusal('stream', 'must be a boolean');
  return { messages, tools, params: { ...settings, ...choice }, stream: body.stream === true };
}

/** The job's request for a Messages body: the translation, and the body as received for the record. */
export function parseMessagesRequest(body: unknown, attribution: AgentAttribution): AgentModelRequest | WireRefusal {
  const translated = translateMessagesBody(body);
  if (isRefusal(translated)) return translated;
  return {
    attribution,
    ...translated,
    // A Messages stream always carries usage (message_start and message_delta): nothing to ask for.
    includeUsage: true,
    protocol: 'messages',
    received: body as Record<string, unknown>,
  };
}

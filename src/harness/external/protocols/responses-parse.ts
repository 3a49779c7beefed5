// An OpenAI Responses request (`POST …/v1/responses`) translated onto the chat completion request
// the job records and sends upstream. Deterministic: the same body (and the same earlier replies,
// for `previous_response_id`) gives the same chat request. Every top-level field is decided on:
// carried onto its chat equivalent, kept in the record only (the body as received is recorded),
// or refused naming it; an unknown one is refused, never dropped.
import type { ChatMessage } from '../../../providers/chat.js';
import type { AgentAttribution, AgentModelRequest } from '../../kernel/agent-gateway.js';
import { isObject, onlyKeys, refuse, unset } from './refusal.js';
import { inputMessages } from './responses-input.js';
import { reasoningParams, textParams, toolChoice, toolSpecs } from './responses-settings.js';
import type { ConversationMemory } from './types.js';

/** The memory key of a response's conversation (without its instructions: they are per request). */
export const responseKey = (id: string): string => `response:${id}`;

/**
 * Fields kept in the record only: the agent's intent, with nothing for chat to do. `store` and
 * `metadata` are OpenAI's server-side storage, which chat's fields of the same names mean
 * otherwise; `truncation: "auto"` cannot be honoured (a conversation too long fails upstream);
 * `stream_options` asks for obfuscation padding, `prompt_cache_retention` for a cache policy,
 * `client_metadata` is the client's own telemetry (Codex CLI sends it with every request).
 */
const RECORDED = ['metadata', 'store', 'truncation', 'stream_options', 'prompt_cache_retention', 'client_metadata'];
/** Fields chat has under the same name and meaning, with their type: forwarded as sent (a null is left out: chat's default). */
const FORWARDED: Record<string, 'string' | 'number'> = {
  temperature: 'number',
  top_p: 'number',
  user: 'string',
  safety_identifier: 'string',
  prompt_cache_key: 'string',
  service_tier: 'string',
};
/** Fields whose only carriable value is "not used" (null, or the value that turns them off). */
const OFF: Record<string, unknown> = {
  background: false,
  conversation: null,
  prompt: null,
  context_management: null,
  top_logprobs: 0,
  moderation: null,
  prompt_cache_options: null,
};
/** `include` values that ask for nothing chat's reply would lack (no reasoning is returned, hosted tools are refused). */
const INCLUDABLE = [
  'reasoning.encrypted_content',
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'code_interpreter_call.outputs',
  'computer_call_output.output.image_url',
  'message.input_image.image_url',
];
const CARRIED = [
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'reasoning',
  'text',
  'stream',
  'previous_response_id',
  'include',
];
const KNOWN = [...CARRIED, ...Object.keys(FORWARDED), ...RECORDED, ...Object.keys(OFF)];

/** Whether the request has instructions, sent as the chat request's first (system) message. */
export const hasInstructions = (body: Record<string, unknown>): body is { instructions: string } =>
  typeof body.instructions === 'string' && body.instructions !== '';

/** The chat request of a Responses body; throws a ProtocolRefusal at the first field it cannot carry. */
export function responsesToChat(body: unknown, attribution: AgentAttribution, memory: ConversationMemory): AgentModelRequest {
  if (!isObject(body)) refuse('body', 'the request body must be a JSON object');
  onlyKeys(body, '', KNOWN);
  for (const [field, off] of Object.entries(OFF)) {
    const v = body[field];
    if (!unset(v) && v !== off)
      refuse(field, `${JSON.stringify(v)} cannot be carried onto chat completions (only ${JSON.stringify(off)} or null)`, 'unsupported_value');
  }
  if (!unset(body.model) && typeof body.model !== 'string') refuse('model', 'must be a string');
  if (!unset(body.stream) && typeof body.stream !== 'boolean') refuse('stream', 'must be a boolean');
  if (!unset(body.instructions) && typeof body.instructions !== 'string') refuse('instructions', 'must be a string');
  checkInclude(body.include);

  const messages: ChatMessage[] = [
    ...(hasInstructions(body) ? [{ role: 'system' as const, content: body.instructions }] : []),
    ...previousConversation(body.previous_response_id, memory),
    ...inputMessages(body.input, memory),
  ];
  if (messages.length === 0) refuse('input', 'there is no message to send (no input, instructions or previous response)');
  const tools = toolSpecs(body.tools);
  return {
    attribution,
    messages,
    tools,
    params: chatParams(body, tools.length > 0),
    stream: body.stream === true,
    includeUsage: false,
    protocol: 'responses',
    received: body,
  };
}

function previousConversation(id: unknown, memory: ConversationMemory): ChatMessage[] {
  if (unset(id)) return [];
  if (typeof id !== 'string') refuse('previous_response_id', 'must be a string');
  const conversation = memory.recall(responseKey(id));
  if (!conversation)
    refuse(
      'previous_response_id',
      `no response ${JSON.stringify(id)} in this job (only this agent's earlier responses can be continued)`,
      'previous_response_not_found',
    );
  return conversation;
}

function checkInclude(include: unknown): void {
  if (unset(include)) return;
  if (!Array.isArray(include)) refuse('include', 'must be an array of strings');
  include.forEach((v, i) => {
    if (typeof v !== 'string') refuse(`include[${i}]`, 'must be a string');
    if (!INCLUDABLE.includes(v)) refuse(`include[${i}]`, `${JSON.stringify(v)} cannot be carried onto chat completions`, 'unsupported_value');
  });
}

/** The chat body fields of the request, in a fixed order (the recorded params are compared on replay). */
function chatParams(body: Record<string, unknown>, withTools: boolean): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const max = body.max_output_tokens;
  if (!unset(max)) {
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) refuse('max_output_tokens', 'must be a positive integer');
    params.max_tokens = max;
  }
  for (const [field, type] of Object.entries(FORWARDED)) {
    const v = body[field];
    if (unset(v)) continue;
    if (typeof v !== type) refuse(field, `must be a ${type}`);
    params[field] = v;
  }
  // Chat refuses both without tools, and without tools they mean nothing (the body as received keeps them).
  if (!unset(body.tool_choice)) {
    const choice = toolChoice(body.tool_choice);
    if (withTools) params.tool_choice = choice;
  }
  if (!unset(body.parallel_tool_calls)) {
    if (typeof body.parallel_tool_calls !== 'boolean') refuse('parallel_tool_calls', 'must be a boolean');
    if (withTools) params.parallel_tool_calls = body.parallel_tool_calls;
  }
  Object.assign(params, reasoningParams(body.reasoning), textParams(body.text));
  return params;
}

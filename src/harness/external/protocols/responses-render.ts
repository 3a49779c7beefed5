// A job's reply rendered as an OpenAI Responses `response` object. Pure and byte-stable: ids come
// from the reply's id (itself from the recorded call's name), `created_at` is the proxy's fixed
// date, and the request's own settings are echoed from the body as received, as the API does.
import type { Usage } from '../../../events/index.js';
import type { ChatMessage } from '../../../providers/chat.js';
import type { AgentModelRequest } from '../../kernel/agent-gateway.js';
import { PROXY_CREATED } from './chat-wire.js';
import type { AgentCompletion } from './types.js';

/** The ids of one reply's response and output items. */
export interface ResponseIds {
  response: string;
  message: string;
  call(index: number): string;
}

/** Ids derived from the reply's (`chatcmpl-evalog-agent-call-3-attempt-1` → `resp_evalog_agent-call-3-attempt-1`). */
export function responseIds(reply: AgentCompletion): ResponseIds {
  const stem = reply.id.startsWith('chatcmpl-evalog-') ? reply.id.slice('chatcmpl-evalog-'.length) : reply.id;
  return { response: `resp_evalog_${stem}`, message: `msg_evalog_${stem}`, call: (i) => `fc_evalog_${stem}_${i}` };
}

/** `incomplete` when the upstream stopped short (truncated or filtered); otherwise `completed`. */
export function responseStatus(reply: AgentCompletion): { status: 'completed' | 'incomplete'; details: { reason: string } | null } {
  if (reply.finishReason === 'length') return { status: 'incomplete', details: { reason: 'max_output_tokens' } };
  if (reply.finishReason === 'content_filter') return { status: 'incomplete', details: { reason: 'content_filter' } };
  return { status: 'completed', details: null };
}

/**
 * Whether the reply renders a `message` item: when it has text, or when it has nothing else (an
 * empty answer is an empty message). A reply of tool calls only has none, as OpenAI's.
 */
const hasMessage = (reply: AgentCompletion): reply is AgentCompletion & { content: string } =>
  reply.content !== null && (reply.content !== '' || reply.toolCalls.length === 0);

/** The `message` item of the reply's text (its status `incomplete` when the text was cut short). */
export function messageItem(reply: AgentCompletion & { content: string }, ids: ResponseIds): Record<string, unknown> {
  const status = responseStatus(reply).status === 'incomplete' ? 'incomplete' : 'completed';
  return { id: ids.message, type: 'message', status, content: [outputText(reply.content)], role: 'assistant' };
}

/** An `output_text` content part; chat has no citations or log probabilities to give. */
export const outputText = (text: string): Record<string, unknown> => ({ type: 'output_text', annotations: [], logprobs: [], text });

/** The output items: the message (if any), then one `function_call` per tool call, in the reply's order. */
export function outputItems(reply: AgentCompletion, ids: ResponseIds): Record<string, unknown>[] {
  const items = hasMessage(reply) ? [messageItem(reply, ids)] : [];
  reply.toolCalls.forEach((c, i) => {
    items.push({ id: ids.call(i), type: 'function_call', status: 'completed', arguments: c.arguments, call_id: c.id, name: c.name });
  });
  return items;
}

/**
 * Usage under the Responses names. Responses clients read all three counts when usage is there
 * (the AI SDK's and Codex's parsers require them), so a usage the upstream reported only in part
 * is null rather than a made-up count; details appear only when reported (never 0 for unknown).
 */
export function responsesUsage(usage: Usage | null): Record<string, unknown> | null {
  if (!usage || usage.prompt === null || usage.completion === null || usage.total === null) return null;
  return {
    input_tokens: usage.prompt,
    ...(typeof usage.cached === 'number' ? { input_tokens_details: { cached_tokens: usage.cached } } : {}),
    output_tokens: usage.completion,
    ...(typeof usage.reasoning === 'number' ? { output_tokens_details: { reasoning_tokens: usage.reasoning } } : {}),
    total_tokens: usage.total,
  };
}

const echo = (body: Record<string, unknown>, key: string, otherwise: unknown): unknown => body[key] ?? otherwise;

/**
 * The `response` object, in the API's key order. `state` is the stream's opening snapshot
 * (`in_progress`, no output, no usage) or the finished response.
 */
export function responseBody(reply: AgentCompletion, request: AgentModelRequest, state: 'in_progress' | 'done' = 'done'): Record<string, unknown> {
  const body = request.received ?? {};
  const ids = responseIds(reply);
  const done = state === 'done';
  const { status, details } = responseStatus(reply);
  const reasoning = (body.reasoning ?? {}) as Record<string, unknown>;
  const text = (body.text ?? {}) as Record<string, unknown>;
  return {
    id: ids.response,
    object: 'response',
    created_at: PROXY_CREATED,
    status: done ? status : 'in_progress',
    background: false,
    error: null,
    incomplete_details: done ? details : null,
    instructions: echo(body, 'instructions', null),
    max_output_tokens: echo(body, 'max_output_tokens', null),
    model: reply.model,
    output: done ? outputItems(reply, ids) : [],
    parallel_tool_calls: echo(body, 'parallel_tool_calls', true),
    previous_response_id: echo(body, 'previous_response_id', null),
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: echo(body, 'service_tier', null),
    store: echo(body, 'store', true),
    temperature: echo(body, 'temperature', null),
    text: { format: text.format ?? { type: 'text' }, ...(text.verbosity == null ? {} : { verbosity: text.verbosity }) },
    tool_choice: echo(body, 'tool_choice', 'auto'),
    tools: echo(body, 'tools', []),
    top_p: echo(body, 'top_p', null),
    truncation: echo(body, 'truncation', 'disabled'),
    usage: done ? responsesUsage(reply.usage) : null,
    user: echo(body, 'user', null),
    metadata: echo(body, 'metadata', {}),
  };
}

/**
 * The reply as the chat messages a later request's conversation continues from: the assistant
 * message it was, as a client echoing the output items would send it back (none when the reply
 * rendered no item at all).
 */
export function replyMessages(reply: AgentCompletion, ids: ResponseIds = responseIds(reply)): { id: string; message: ChatMessage }[] {
  const out: { id: string; message: ChatMessage }[] = [];
  if (hasMessage(reply)) out.push({ id: ids.message, message: { role: 'assistant', content: reply.content } });
  reply.toolCalls.forEach((c, i) => {
    const call = { id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } };
    out.push({ id: ids.call(i), message: { role: 'assistant', content: null, tool_calls: [call] } });
  });
  return out;
}

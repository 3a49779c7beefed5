// The OpenAI wire format of the recording proxy: an agent's chat completion body parsed into an
// AgentModelRequest, and a job's AgentModelReply rendered as the JSON or SSE an OpenAI client
// expects. Pure: no I/O, no clock, so a replayed reply renders to the same bytes as the live one.
import type { Usage } from '../../../events/index.js';
import type { ChatMessage, ToolSpec } from '../../../providers/chat.js';
import type { AgentCompletion, AgentFailure } from './types.js';
import type { AgentAttribution, AgentModelRequest } from '../../kernel/agent-gateway.js';

export type { AgentCompletion, AgentFailure } from './types.js';

/**
 * `created` of every rendered completion (2024-01-01T00:00:00Z). The reply has no time of its own
 * and the clock must not leak into a body that replay serves again byte for byte; clients do not
 * read it, but some reject 0, so it is a fixed plausible date.
 */
export const PROXY_CREATED = 1_704_067_200;

/** Body fields the proxy consumes itself; everything else is forwarded in `params` as sent. */
const OWN_FIELDS = new Set(['model', 'messages', 'tools', 'stream', 'stream_options']);

/** A tool without `parameters` takes no arguments; an empty object schema says so to every upstream. */
const NO_PARAMETERS = (): Record<string, unknown> => ({ type: 'object', properties: {} });

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

// Only the role is checked: the proxy records and forwards messages as the agent sent them (content
// parts, names, developer roles...), and the upstream is the judge of the rest.
const isMessage = (x: unknown): x is ChatMessage => isObject(x) && typeof x.role === 'string';

function parseTool(x: unknown, at: string): ToolSpec | string {
  if (!isObject(x) || x.type !== 'function') return `${at}.type: must be "function"`;
  const fn = x.function;
  if (!isObject(fn)) return `${at}.function: must be an object`;
  if (typeof fn.name !== 'string' || fn.name === '') return `${at}.function.name: must be a non-empty string`;
  if (fn.description !== undefined && fn.description !== null && typeof fn.description !== 'string') return `${at}.function.description: must be a string`;
  if (fn.parameters !== undefined && fn.parameters !== null && !isObject(fn.parameters)) return `${at}.function.parameters: must be a JSON schema object`;
  return {
    name: fn.name,
    description: typeof fn.description === 'string' ? fn.description : '',
    parameters: isObject(fn.parameters) ? fn.parameters : NO_PARAMETERS(),
  };
}

/** Parses a chat completion body as an agent sent it; `{ error }` names the first bad field. */
export function parseAgentRequest(body: unknown, attribution: AgentAttribution): AgentModelRequest | { error: string } {
  if (!isObject(body)) return { error: 'the request body must be a JSON object' };
  const { messages, tools, stream, stream_options: streamOptions } = body;
  if (!Array.isArray(messages)) return { error: 'messages: must be an array of messages' };
  const badMessage = messages.findIndex((m) => !isMessage(m));
  if (badMessage >= 0) return { error: `messages[${badMessage}]: must be an object with a string "role"` };
  const specs: ToolSpec[] = [];
  if (tools !== undefined && tools !== null) {
    if (!Array.isArray(tools)) return { error: 'tools: must be an array of tools' };
    for (const [i, tool] of tools.entries()) {
      const spec = parseTool(tool, `tools[${i}]`);
      if (typeof spec === 'string') return { error: spec };
      specs.push(spec);
    }
  }
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') return { error: 'stream: must be a boolean' };
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) return { error: 'stream_options: must be an object' };
  const params = Object.fromEntries(Object.entries(body).filter(([k]) => !OWN_FIELDS.has(k)));
  return {
    attribution,
    messages: messages.filter(isMessage),
    tools: specs,
    params,
    stream: stream === true,
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
  };
}

/** Usage under OpenAI's names; a field not reported is left out (never 0), and no field at all gives null. */
export function usageBody(usage: Usage | null): Record<string, unknown> | null {
  if (!usage) return null;
  const out: Record<string, unknown> = {};
  if (usage.prompt !== null) out.prompt_tokens = usage.prompt;
  if (usage.completion !== null) out.completion_tokens = usage.completion;
  if (usage.total !== null) out.total_tokens = usage.total;
  if (usage.cached !== undefined && usage.cached !== null) out.prompt_tokens_details = { cached_tokens: usage.cached };
  return Object.keys(out).length > 0 ? out : null;
}

const wireToolCalls = (reply: AgentCompletion) =>
  reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));

/** The non-streamed `chat.completion` object; key order is fixed so the JSON is byte-stable. */
export function completionBody(reply: AgentCompletion): Record<string, unknown> {
  // `refusal: null` as OpenAI sends it (and as the client's stream helper fills it in), so the two forms agree.
  const message: Record<string, unknown> = { role: 'assistant', content: reply.content, refusal: null };
  if (reply.toolCalls.length > 0) message.tool_calls = wireToolCalls(reply);
  const body: Record<string, unknown> = {
    id: reply.id,
    object: 'chat.completion',
    created: PROXY_CREATED,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
  };
  const usage = usageBody(reply.usage);
  if (usage) body.usage = usage;
  return body;
}

/**
 * The `chat.completion.chunk` objects of a streamed reply, in order: the role, the content, each
 * tool call (id, type and name, then its arguments), the finish reason, and with `includeUsage` a
 * last chunk with no choices and the usage — left out when nothing was reported, as a provider that
 * reports no usage would. The reply is complete before it is streamed, so it is one chunk per part.
 */
export function completionChunks(reply: AgentCompletion, includeUsage: boolean): Record<string, unknown>[] {
  const usage = includeUsage ? usageBody(reply.usage) : null;
  const chunk = (choices: unknown[], chunkUsage: unknown = null): Record<string, unknown> => {
    const out: Record<string, unknown> = { id: reply.id, object: 'chat.completion.chunk', created: PROXY_CREATED, model: reply.model, choices };
    // OpenAI marks every chunk `usage: null` when a usage chunk will follow.
    if (usage) out.usage = chunkUsage;
    return out;
  };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  // A null content stays null in the client's accumulated message only if no chunk carries text.
  const chunks = [delta({ role: 'assistant', content: reply.content === null ? null : '', refusal: null })];
  if (reply.content) chunks.push(delta({ content: reply.content }));
  wireToolCalls(reply).forEach((call, index) => {
    chunks.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    if (call.function.arguments !== '') chunks.push(delta({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
  });
  // A null finish reason is sent as null: the agent sees what the upstream answered, even if its
  // client's stream helper then complains.
  chunks.push(delta({}, reply.finishReason));
  if (usage) chunks.push(chunk([], usage));
  return chunks;
}

/** The whole SSE body of a streamed reply: one `data:` event per chunk, then `data: [DONE]`. */
export function completionStream(reply: AgentCompletion, includeUsage: boolean): string {
  return `${completionChunks(reply, includeUsage)
    .map((c) => `data: ${JSON.stringify(c)}\n\n`)
    .join('')}data: [DONE]\n\n`;
}

/** An OpenAI-shaped error body. */
export function openAiError(message: string, type: string, code: string): { error: Record<string, unknown> } {
  return { error: { message, type, code, param: null } };
}

/** A job's error reply as the agent receives it; its codes are evalog's own, so the type says so. */
export function failureBody(reply: AgentFailure): { error: Record<string, unknown> } {
  return openAiError(reply.message, 'evalog_error', reply.code);
}

// A job's reply rendered as the Anthropic `message` object, and errors in Anthropic's shape. Pure:
// key order is fixed and nothing depends on the clock, so a replayed answer is byte-identical.
import type { Usage } from '../../../events/index.js';
import type { AgentCompletion, AgentFailure, WireAnswer } from './types.js';

/**
 * The `id` of the message for a reply: the reply's id (stable, derived from the call's name) under
 * Anthropic's `msg_` prefix, so the same call always answers with the same id.
 */
export const messageId = (reply: AgentCompletion): string => `msg_evalog_${reply.id.replace(/^chatcmpl-(evalog-)?/, '')}`;

/**
 * Anthropic's stop reason for chat's finish reason. A stop sequence ends a chat completion with
 * `stop` and is not reported apart, so it answers `end_turn` (stop_sequence stays null). A reply
 * with tool calls ends with `tool_use` also when the upstream said `stop` (some do), because
 * Anthropic clients run tools on `tool_use`. An unknown reason is passed on as the upstream said it.
 */
export function stopReason(reply: AgentCompletion): string | null {
  const reason = reply.finishReason;
  if (reason === 'length') return 'max_tokens';
  if (reason === 'tool_calls' || reason === 'function_call') return 'tool_use';
  if (reason === 'stop') return reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
  if (reason === 'content_filter') return 'refusal';
  return reason;
}

/**
 * The usage object. Anthropic's `input_tokens` excludes cache reads, so it is prompt − cached when
 * both are known. The clients require `input_tokens` and `output_tokens` to be numbers (the AI SDK
 * rejects the body otherwise, the Anthropic SDK's stream accumulator needs the object), so a count
 * the upstream did not report is rendered 0 there, and the answer says so in the header
 * USAGE_UNKNOWN_HEADER; the job's record keeps it null (unknown), which is what evalog reports.
 * The cache counts are nullable on the wire and stay null when unknown: chat reports no cache writes.
 */
export function usageBody(usage: Usage | null): Record<string, unknown> {
  const prompt = usage?.prompt ?? null;
  const cached = usage?.cached ?? null;
  const body: Record<string, unknown> = {
    input_tokens: prompt === null ? 0 : Math.max(0, prompt - (cached ?? 0)),
    cache_creation_input_tokens: null,
    cache_read_input_tokens: cached,
    output_tokens: usage?.completion ?? 0,
  };
  // Both count thinking inside the output tokens; the detail is sent only when it was reported.
  const reasoning = usage?.reasoning ?? null;
  if (reasoning !== null) body.output_tokens_details = { thinking_tokens: reasoning };
  return body;
}

/** A response header naming the usage fields rendered 0 because the upstream did not report them. */
export const USAGE_UNKNOWN_HEADER = 'x-evalog-usage-unknown';

/** The headers of an answer: USAGE_UNKNOWN_HEADER when a required count was not reported. */
export function usageHeaders(usage: Usage | null): Record<string, string> {
  const unknown = [usage?.prompt == null ? 'input_tokens' : null, usage?.completion == null ? 'output_tokens' : null].filter((f) => f !== null);
  return unknown.length > 0 ? { [USAGE_UNKNOWN_HEADER]: unknown.join(',') } : {};
}

/**
 * A tool call's `input`: its arguments, which Anthropic's API guarantees to be a JSON object.
 * Arguments that are not one (not JSON, or an array, a number...) are the model's mistake and must
 * reach the agent as made, neither repaired nor hidden: the input is then the arguments text itself
 * (a JSON string), which the agent's tool-input validation reports back to the model. A string
 * (and not, say, a bare number) also keeps the streamed form readable by the clients' partial JSON
 * parsers. Empty arguments (a call with no parameters, as some upstreams send it) are `{}`.
 */
export function toolInput(args: string): unknown {
  if (args === '') return {};
  try {
    const input: unknown = JSON.parse(args);
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : args;
  } catch {
    return args;
  }
}

/** The content blocks: a text block if there is text, then one tool_use block per tool call. */
export function contentBlocks(reply: AgentCompletion): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (reply.content) blocks.push({ type: 'text', text: reply.content });
  for (const call of reply.toolCalls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  return blocks;
}

/** The non-streamed `message` object, keys in the order Anthropic's API writes them. */
export function messageBody(reply: AgentCompletion): Record<string, unknown> {
  return {
    id: messageId(reply),
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: contentBlocks(reply),
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: usageBody(reply.usage),
  };
}

/** Anthropic's error type for an HTTP status (its documented table; other 4xx are invalid requests, other 5xx api errors). */
export function errorType(status: number): string {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** An Anthropic error answer: `{type:"error", error:{type, message}}`. */
export function errorAnswer(status: number, type: string, message: string, headers?: Record<string, string>): WireAnswer {
  const answer: WireAnswer = { status, contentType: 'application/json', body: JSON.stringify({ type: 'error', error: { type, message } }) };
  if (headers) answer.headers = headers;
  return answer;
}

/**
 * A job's error reply. Anthropic's body has no code field, so the message starts with evalog's code
 * (`budget_exhausted: …`), and the type follows the status (403 → permission_error, 502/503 →
 * api_error). `x-should-retry: false` (honoured by the Anthropic SDK and Claude Code) because a retry
 * cannot help: the budget stays spent, an ended job stays ended, and an upstream failure is
 * answered only after evalog's own retries; a client retry would be one more recorded call.
 */
export function failureAnswer(reply: AgentFailure): WireAnswer {
  const message = reply.message.startsWith(`${reply.code}:`) ? reply.message : `${reply.code}: ${reply.message}`;
  return errorAnswer(reply.status, errorType(reply.status), message, { 'x-should-retry': 'false' });
}

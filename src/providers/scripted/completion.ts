import { canonicalJson } from './hash.js';
import { maxTokensOf, type ChatRequest } from './request.js';
import type { PlayerReply } from './types.js';

/** Fixed `created` of every scripted response (2024-01-01T00:00:00Z), so bodies are byte-stable. */
export const SCRIPTED_CREATED = 1_704_067_200;

/** Token counts as the scripted model reports them (OpenAI field names). */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One assistant answer, independent of whether it is sent whole or as SSE chunks. */
export interface Answer {
  id: string;
  model: string;
  systemFingerprint: string;
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: 'stop' | 'tool_calls' | 'length';
  /** null when usage is left out of the response. */
  usage: ScriptedUsage | null;
}

/** How to shape a player's reply into an answer. */
export interface ComposeOptions {
  /** `answerKey` of the request: names the response and its tool calls. */
  key: string;
  seed: number;
  maxTokensTruncation: boolean;
  /** The `truncated` fault: cut the output to half and report 'length'. */
  truncate: boolean;
  omitUsage: boolean;
}

// Lengths and cuts are in code points so that a cut never splits a surrogate pair.
const length = (text: string) => [...text].length;
const cut = (text: string, n: number) => [...text].slice(0, Math.max(0, n)).join('');
const tokens = (chars: number) => Math.ceil(chars / 4);

/** Prompt tokens: a quarter of the characters of the canonical messages and tool schemas, rounded up. */
export function promptTokens(request: ChatRequest): number {
  const chars = length(canonicalJson(request.messages)) + (request.tools ? length(canonicalJson(request.tools)) : 0);
  return tokens(chars);
}

/** Turns a player's reply into the answer to send: ids, truncation, finish reason and usage. */
export function composeAnswer(request: ChatRequest, reply: PlayerReply, opts: ComposeOptions): Answer {
  let content = reply.content ?? null;
  let calls = (reply.toolCalls ?? []).map((c, i) => ({ id: `call_${opts.key.slice(0, 16)}_${i}`, name: c.name, arguments: c.arguments }));
  if (content === null && calls.length === 0) content = '';
  const outputChars = () => length(content ?? '') + calls.reduce((n, c) => n + length(c.name) + length(c.arguments), 0);

  let budget: number | null = null;
  if (opts.truncate) budget = Math.ceil(outputChars() / 2);
  const maxTokens = maxTokensOf(request);
  if (opts.maxTokensTruncation && maxTokens !== null && tokens(outputChars()) > maxTokens) {
    budget = Math.min(budget ?? Infinity, maxTokens * 4);
  }
  if (budget !== null) ({ content, calls } = cutOutput(content, calls, budget));

  const finishReason = budget !== null || reply.finishReason === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop';
  const prompt = promptTokens(request);
  const completion = tokens(outputChars());
  return {
    id: `chatcmpl-${opts.key.slice(0, 29)}`,
    model: request.model,
    systemFingerprint: `fp_scripted_seed_${opts.seed}`,
    content,
    toolCalls: calls,
    finishReason,
    usage: opts.omitUsage ? null : { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

// The model writes content first, then each tool call; a cap stops it wherever it has got to.
function cutOutput(content: string | null, calls: Answer['toolCalls'], budget: number) {
  let left = budget;
  let cutContent = content;
  if (content !== null) {
    cutContent = cut(content, left);
    left -= length(cutContent);
  }
  const kept: Answer['toolCalls'] = [];
  for (const call of calls) {
    if (left <= length(call.name)) break;
    left -= length(call.name);
    const args = cut(call.arguments, left);
    left -= length(args);
    kept.push({ ...call, arguments: args });
  }
  return { content: cutContent, calls: kept };
}

/** The non-streaming `chat.completion` object; key order is fixed so the JSON is byte-stable. */
export function completionBody(answer: Answer, emptyChoices = false): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.content, refusal: null };
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  }
  const body: Record<string, unknown> = {
    id: answer.id,
    object: 'chat.completion',
    created: SCRIPTED_CREATED,
    model: answer.model,
    system_fingerprint: answer.systemFingerprint,
    choices: emptyChoices ? [] : [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
  };
  if (answer.usage) body.usage = answer.usage;
  return body;
}

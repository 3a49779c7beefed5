// Reading a pass-through answer (OpenAI Responses or Anthropic Messages, plain JSON or the whole
// SSE stream) for what the run records beside its bytes: the text, the tool calls, a chat-style
// finish reason and the usage in the run's fields. Pure: the same bytes always read the same.
import type { DataOf, NativeProtocol, ToolCallRequest, Usage } from '../events/index.js';

type Read = { ok: true; data: Omit<DataOf<'ProviderCallSucceeded'>, 'callId' | 'answer'> } | { ok: false; message: string };

/** What an answer's bytes say, or why they are no answer of `protocol` (recorded as `malformed`). */
export function readNativeAnswer(protocol: NativeProtocol, contentType: string, text: string, latencyMs: number): Read {
  const sse = /^text\/event-stream/i.test(contentType);
  const body = sse ? (protocol === 'responses' ? responsesStreamBody(text) : messagesStreamBody(text)) : parseJson(text);
  if (typeof body === 'string') return { ok: false, message: body };
  if (!isRecord(body)) return { ok: false, message: `the ${protocol} answer is not a JSON object` };
  return protocol === 'responses' ? readResponse(body, latencyMs) : readMessage(body, latencyMs);
}

/** A Responses `response` object: its message text, function calls, status and usage. */
function readResponse(r: Record<string, unknown>, latencyMs: number): Read {
  if (!Array.isArray(r.output)) return { ok: false, message: 'the Responses answer has no output array (field output)' };
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  for (const item of r.output) {
    if (!isRecord(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content) if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
    } else if (item.type === 'function_call') {
      const id = typeof item.call_id === 'string' ? item.call_id : String(item.id ?? '');
      toolCalls.push({ id, name: String(item.name ?? ''), arguments: typeof item.arguments === 'string' ? item.arguments : '{}' });
    }
  }
  const incomplete = isRecord(r.incomplete_details) ? r.incomplete_details.reason : undefined;
  const finishReason =
    r.status === 'incomplete'
      ? incomplete === 'max_output_tokens'
        ? 'length'
        : String(incomplete ?? 'incomplete')
      : toolCalls.length > 0
        ? 'tool_calls'
        : 'stop';
  const u = isRecord(r.usage) ? r.usage : null;
  const usage: Usage | null = u
    ? withDetails(
        { prompt: count(u.input_tokens), completion: count(u.output_tokens), total: count(u.total_tokens) },
        count(isRecord(u.input_tokens_details) ? u.input_tokens_details.cached_tokens : undefined),
        count(isRecord(u.output_tokens_details) ? u.output_tokens_details.reasoning_tokens : undefined),
      )
    : null;
  return success(texts, toolCalls, finishReason, usage, latencyMs, r.model, u);
}

/**
 * An Anthropic `message` object. Its `input_tokens` leaves out cache reads and writes, so the run's
 * prompt count is their sum (what the model read); `cached` is the cache reads. The raw usage,
 * cache writes included, is kept as reportedUsage.
 */
function readMessage(m: Record<string, unknown>, latencyMs: number): Read {
  if (!Array.isArray(m.content)) return { ok: false, message: 'the Messages answer has no content array (field content)' };
  const texts: string[] = [];
  const toolCalls: ToolCallRequest[] = [];
  for (const block of m.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use') {
      const input = typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {});
      toolCalls.push({ id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: input });
    }
  }
  const stop = typeof m.stop_reason === 'string' ? m.stop_reason : null;
  const finishReason = stop === null ? null : (STOP_REASONS[stop] ?? stop);
  const u = isRecord(m.usage) ? m.usage : null;
  let usage: Usage | null = null;
  if (u) {
    const input = count(u.input_tokens);
    const read = count(u.cache_read_input_tokens);
    const written = count(u.cache_creation_input_tokens);
    const prompt = input === null ? null : input + (read ?? 0) + (written ?? 0);
    const completion = count(u.output_tokens);
    const total = prompt === null || completion === null ? null : prompt + completion;
    usage = withDetails({ prompt, completion, total }, read, null);
  }
  return success(texts, toolCalls, finishReason, usage, latencyMs, m.model, u);
}

/** Anthropic's stop reasons under the chat names the run reads (`length` marks a truncated reply). */
const STOP_REASONS: Readonly<Record<string, string>> = { end_turn: 'stop', stop_sequence: 'stop', tool_use: 'tool_calls', max_tokens: 'length' };

function success(
  texts: string[],
  toolCalls: ToolCallRequest[],
  finishReason: string | null,
  usage: Usage | null,
  latencyMs: number,
  model: unknown,
  reported: Record<string, unknown> | null,
): Read {
  return {
    ok: true,
    data: {
      content: texts.length > 0 ? texts.join('') : null,
      toolCalls,
      finishReason,
      usage,
      latencyMs,
      ...(typeof model === 'string' ? { responseModel: model } : {}),
      ...(reported ? { reportedUsage: reported } : {}),
    },
  };
}

/** The usage with its details, absent (not null) when not reported, as a chat usage reads. */
function withDetails(base: Pick<Usage, 'prompt' | 'completion' | 'total'>, cached: number | null, reasoning: number | null): Usage {
  return { ...base, ...(cached === null ? {} : { cached }), ...(reasoning === null ? {} : { reasoning }) };
}

/** The events of an SSE body, in order: each one's `event:` name and its `data:` lines joined. */
export function sseEvents(text: string): { event: string | null; data: string }[] {
  const out: { event: string | null; data: string }[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split(/\n\n+/)) {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== null || data.length > 0) out.push({ event, data: data.join('\n') });
  }
  return out;
}

/** The final `response` of a Responses stream (its response.completed or response.incomplete event). */
function responsesStreamBody(text: string): unknown {
  for (const e of sseEvents(text).reverse()) {
    const data = parseJson(e.data);
    if (!isRecord(data)) continue;
    const type = data.type ?? e.event;
    if (type === 'response.completed' || type === 'response.incomplete') return data.response;
    if (type === 'response.failed' || type === 'error') return `the Responses stream ended in ${String(type)}: ${JSON.stringify(data.response ?? data)}`;
  }
  return 'the Responses stream has no response.completed event';
}

/** The `message` a Messages stream builds: message_start, its content blocks and deltas, message_delta. */
function messagesStreamBody(text: string): unknown {
  let message: Record<string, unknown> | null = null;
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  let stopped = false;
  for (const e of sseEvents(text)) {
    const data = parseJson(e.data);
    if (!isRecord(data)) continue;
    switch (data.type) {
      case 'message_start':
        if (isRecord(data.message)) message = { ...data.message, content: [] };
        break;
      case 'content_block_start': {
        const i = Number(data.index);
        if (isRecord(data.content_block) && Number.isInteger(i)) {
          blocks[i] = { ...data.content_block };
          json[i] = '';
        }
        break;
      }
      case 'content_block_delta': {
        const i = Number(data.index);
        const block = blocks[i];
        const d = isRecord(data.delta) ? data.delta : {};
        if (!block) break;
        if (d.type === 'text_delta' && typeof d.text === 'string') block.text = `${String(block.text ?? '')}${d.text}`;
        if (d.type === 'input_json_delta' && typeof d.partial_json === 'string') json[i] = `${json[i] ?? ''}${d.partial_json}`;
        break;
      }
      case 'message_delta':
        if (message) {
          if (isRecord(data.delta)) Object.assign(message, data.delta);
          if (isRecord(data.usage)) message.usage = { ...(isRecord(message.usage) ? message.usage : {}), ...data.usage };
        }
        break;
      case 'message_stop':
        stopped = true;
        break;
      case 'error':
        return `the Messages stream ended in an error: ${JSON.stringify(data.error ?? data)}`;
      default:
        break;
    }
  }
  if (!message || !stopped) return 'the Messages stream has no message_start and message_stop';
  // A tool_use block's input is its streamed JSON text, kept verbatim (the arguments the model wrote).
  message.content = blocks.flatMap((b, i) =>
    b === undefined ? [] : b.type === 'tool_use' ? [{ ...b, input: json[i] || JSON.stringify(b.input ?? {}) }] : [b],
  );
  return message;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return 'the answer is not JSON';
  }
}

const count = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

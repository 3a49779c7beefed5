// A job's reply rendered as the SSE events of a streamed Anthropic message. The reply is complete
// before it is streamed, so each block is one start, one delta and one stop; what a client
// accumulates from them equals the non-streamed `message` (messages-render.ts) field for field.
import { contentBlocks, messageBody, usageBody } from './messages-render.js';
import type { AgentCompletion } from './types.js';

/** One SSE event: its name and its data object (whose `type` repeats the name, as Anthropic sends it). */
export interface MessagesEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * A tool_use block's input as the `partial_json` of its one delta: the arguments byte for byte
 * when they are the JSON object the input is, the JSON of the string input otherwise (see
 * messages-render's toolInput). Empty arguments send no delta: the input stays the `{}` of
 * content_block_start.
 */
function partialJson(args: string, input: unknown): string {
  if (args === '') return '';
  return typeof input === 'string' ? JSON.stringify(input) : args;
}

/** The events in order: message_start, ping, each content block, message_delta, message_stop. */
export function messageEvents(reply: AgentCompletion): MessagesEvent[] {
  const full = messageBody(reply);
  const ev = (event: string, rest: Record<string, unknown> = {}): MessagesEvent => ({ event, data: { type: event, ...rest } });
  // The usage is known in full from the start; message_delta repeats it, as Anthropic's does now.
  const events = [ev('message_start', { message: { ...full, content: [], stop_reason: null, stop_sequence: null } }), ev('ping')];
  const blocks = contentBlocks(reply);
  blocks.forEach((block, index) => {
    events.push(ev('content_block_start', { index, content_block: block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} } }));
    if (block.type === 'text') events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }));
    else {
      // Tool blocks follow the one text block, in the order of the reply's tool calls.
      const call = reply.toolCalls[index - (blocks.length - reply.toolCalls.length)];
      const partial = partialJson(call?.arguments ?? '', block.input);
      if (partial !== '') events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partial } }));
    }
    events.push(ev('content_block_stop', { index }));
  });
  events.push(ev('message_delta', { delta: { stop_reason: full.stop_reason, stop_sequence: null }, usage: usageBody(reply.usage) }));
  events.push(ev('message_stop'));
  return events;
}

/** The whole SSE body: `event:` and `data:` lines per event, each followed by a blank line. */
export function messageStream(reply: AgentCompletion): string {
  return messageEvents(reply)
    .map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`)
    .join('');
}

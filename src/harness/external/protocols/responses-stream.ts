// A reply as the typed SSE events of a streamed Responses call, in the API's order: the response
// created and in progress, each output item added, its content (text or arguments) in one delta
// and done, the item done, then the response completed (or incomplete). The reply is complete
// before it is streamed, so each part is one delta; `sequence_number` counts the events from 0.
import type { AgentModelRequest } from '../../kernel/agent-gateway.js';
import { outputItems, outputText, responseBody, responseIds, responseStatus } from './responses-render.js';
import type { AgentCompletion } from './types.js';

type Event = Record<string, unknown> & { type: string };

/** The stream's events, without their sequence numbers. */
function events(reply: AgentCompletion, request: AgentModelRequest): Event[] {
  const opening = responseBody(reply, request, 'in_progress');
  const out: Event[] = [
    { type: 'response.created', response: opening },
    { type: 'response.in_progress', response: opening },
  ];
  outputItems(reply, responseIds(reply)).forEach((item, outputIndex) => {
    const where = { item_id: item.id, output_index: outputIndex };
    if (item.type === 'message') {
      const [part] = item.content as Record<string, unknown>[];
      const text = String(part?.text ?? '');
      const at = { ...where, content_index: 0 };
      out.push({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      out.push({ type: 'response.content_part.added', ...at, part: outputText('') });
      if (text !== '') out.push({ type: 'response.output_text.delta', ...at, delta: text, logprobs: [] });
      out.push({ type: 'response.output_text.done', ...at, text, logprobs: [] });
      out.push({ type: 'response.content_part.done', ...at, part });
    } else {
      const args = String(item.arguments);
      out.push({ type: 'response.output_item.added', output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      if (args !== '') out.push({ type: 'response.function_call_arguments.delta', ...where, delta: args });
      out.push({ type: 'response.function_call_arguments.done', ...where, name: item.name, arguments: args });
    }
    out.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  });
  const terminal = responseStatus(reply).status === 'incomplete' ? 'response.incomplete' : 'response.completed';
  out.push({ type: terminal, response: responseBody(reply, request) });
  return out;
}

/** The events with their sequence numbers, as the client parses them. */
export function responseEvents(reply: AgentCompletion, request: AgentModelRequest): Event[] {
  return events(reply, request).map((e, n) => ({ ...e, sequence_number: n }));
}

/** The whole SSE body: `event: <type>` and `data: <json>` per event. Responses streams end with the terminal event (no `[DONE]`). */
export function responseStream(reply: AgentCompletion, request: AgentModelRequest): string {
  return responseEvents(reply, request)
    .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    .join('');
}

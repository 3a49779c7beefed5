// A Responses request's `input` translated onto chat messages. Messages keep their role (system,
// developer, user, assistant), their text parts their boundaries; a `function_call` item joins the
// assistant message before it as a tool call, as the chat reply it came from held them; a
// `function_call_output` is a tool message. References to earlier items are resolved from the
// job's memory. Anything else is refused, naming the item.
import type { ChatMessage, WireToolCall } from '../../../providers/chat.js';
import { isObject, onlyKeys, refuse, stringAt, unset } from './refusal.js';
import type { ConversationMemory } from './types.js';

/** A chat message as evalog forwards it: the roles and text-part contents chat has beyond ChatMessage's subset. */
export type WireMessage = Record<string, unknown> & { role: string };

const ROLES = ['user', 'system', 'developer', 'assistant'];
const TEXT_PARTS = ['input_text', 'output_text'];

/** The memory key of an output item (message or function call) a later `item_reference` may name. */
export const itemKey = (id: string): string => `item:${id}`;

/** Chat messages of `input` (a string is one user message), in order. */
export function inputMessages(input: unknown, memory: ConversationMemory): ChatMessage[] {
  if (unset(input)) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) refuse('input', 'must be a string or an array of items');
  const out: WireMessage[] = [];
  for (const [i, item] of input.entries()) addItem(out, item, `input[${i}]`, memory);
  // Roles beyond ChatMessage's subset (developer) and text-part contents are chat's own; the proxy forwards them as it does a chat agent's.
  return out as unknown as ChatMessage[];
}

/**
 * Appends `m`; an assistant message of tool calls only joins the assistant message before it, so
 * the text and the calls of one reply (a `message` item and its `function_call` items) are one
 * chat message again. A message taken from memory is never changed in place.
 */
export function appendMessage(out: WireMessage[], m: WireMessage): void {
  const last = out.at(-1);
  const calls = m.tool_calls as WireToolCall[] | undefined;
  if (last?.role === 'assistant' && m.role === 'assistant' && m.content === null && calls) {
    out[out.length - 1] = { ...last, tool_calls: [...((last.tool_calls as WireToolCall[] | undefined) ?? []), ...calls] };
    return;
  }
  out.push(m);
}

function addItem(out: WireMessage[], item: unknown, at: string, memory: ConversationMemory): void {
  if (!isObject(item)) refuse(at, 'must be an object');
  // An easy input message may leave out its type.
  const type = item.type === undefined && typeof item.role === 'string' ? 'message' : item.type;
  if (typeof type !== 'string') refuse(`${at}.type`, 'must be a string');
  switch (type) {
    case 'message':
      return void appendMessage(out, messageOf(item, at));
    case 'function_call':
      return void appendMessage(out, callOf(item, at));
    case 'function_call_output':
      return void out.push(outputOf(item, at));
    case 'reasoning':
      return void emptyReasoning(item, at);
    case 'item_reference': {
      onlyKeys(item, at, ['type', 'id']);
      const id = stringAt(item, 'id', at);
      const recalled = memory.recall(itemKey(id));
      if (!recalled)
        refuse(`${at}.id`, `no item ${JSON.stringify(id)} in this job (only items of this agent's earlier responses can be referred to)`, 'item_not_found');
      for (const m of recalled as unknown as WireMessage[]) appendMessage(out, m);
      return;
    }
    default:
      refuse(`${at}.type`, `${JSON.stringify(type)} cannot be carried onto chat completions`, 'unsupported_value');
  }
}

function messageOf(item: Record<string, unknown>, at: string): WireMessage {
  // id, status and phase describe an item the agent got back; they are not content.
  onlyKeys(item, at, ['type', 'role', 'content', 'id', 'status', 'phase']);
  const role = item.role;
  if (typeof role !== 'string' || !ROLES.includes(role)) refuse(`${at}.role`, 'must be user, system, developer or assistant');
  return { role, content: textContent(item.content, `${at}.content`) };
}

/**
 * A content as chat carries it: a string as is, one text part as its string, several as chat text
 * parts (so their boundaries are kept). Parts other than text (images, files, audio, refusals)
 * cannot be carried.
 */
function textContent(content: unknown, at: string): string | { type: 'text'; text: string }[] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) refuse(at, 'must be a string or an array of content parts');
  const texts = content.map((part, j) => {
    const where = `${at}[${j}]`;
    if (!isObject(part)) refuse(where, 'must be an object');
    if (typeof part.type !== 'string') refuse(`${where}.type`, 'must be a string');
    if (!TEXT_PARTS.includes(part.type)) refuse(`${where}.type`, `${JSON.stringify(part.type)} cannot be carried onto chat completions`, 'unsupported_value');
    onlyKeys(part, where, ['type', 'text', 'annotations', 'logprobs']);
    // Citations come from hosted tools, which chat has not: an echoed part has none (logprobs are the reply's, not content).
    if (!unset(part.annotations) && !(Array.isArray(part.annotations) && part.annotations.length === 0)) {
      refuse(`${where}.annotations`, 'annotations cannot be carried onto chat completions', 'unsupported_value');
    }
    return stringAt(part, 'text', where, false);
  });
  if (texts.length === 0) return '';
  if (texts.length === 1) return texts[0]!;
  return texts.map((text) => ({ type: 'text', text }));
}

function callOf(item: Record<string, unknown>, at: string): WireMessage {
  onlyKeys(item, at, ['type', 'id', 'call_id', 'name', 'arguments', 'status']);
  const call: WireToolCall = {
    id: stringAt(item, 'call_id', at),
    type: 'function',
    function: { name: stringAt(item, 'name', at), arguments: stringAt(item, 'arguments', at, false) },
  };
  return { role: 'assistant', content: null, tool_calls: [call] };
}

function outputOf(item: Record<string, unknown>, at: string): WireMessage {
  onlyKeys(item, at, ['type', 'id', 'call_id', 'output', 'status']);
  const callId = stringAt(item, 'call_id', at);
  return { role: 'tool', tool_call_id: callId, content: textContent(item.output, `${at}.output`) };
}

/**
 * A reasoning item that carries nothing is dropped: evalog never answers with reasoning items (chat
 * has none to give), so such an item is one a client made up or kept from another provider, and
 * chat would have no place for it anyway. One with a summary, content or encrypted content carries
 * the model's reasoning, which chat cannot take as input: refused, so nothing is lost unsaid.
 */
function emptyReasoning(item: Record<string, unknown>, at: string): void {
  onlyKeys(item, at, ['type', 'id', 'summary', 'content', 'encrypted_content', 'status']);
  for (const key of ['summary', 'content']) {
    const v = item[key];
    if (unset(v) || (Array.isArray(v) && v.length === 0)) continue;
    refuse(`${at}.${key}`, 'a reasoning item with content cannot be carried onto chat completions (chat takes no reasoning as input)', 'unsupported_value');
  }
  if (!unset(item.encrypted_content)) {
    refuse(`${at}.encrypted_content`, 'encrypted reasoning cannot be carried onto chat completions (chat takes no reasoning as input)', 'unsupported_value');
  }
}

// Anthropic's `system` and `messages` translated onto chat completion messages, deterministically.
//
// Decisions where the two protocols differ:
// - The text blocks of one message join with TEXT_SEPARATOR into one chat message: chat messages
//   carry one string, and a blank line keeps blocks apart (Claude Code sends a system-reminder
//   block and the prompt as two blocks of one user turn).
// - A user turn with tool_result blocks becomes one `tool` message per block, in block order, and
//   then its text (if any) as a user message, wherever the text stood: chat completions wants the
//   tool messages right after the assistant's tool calls.
// - `is_error: true` has no field on chat completions, so it is carried in the text: the result's
//   content prefixed with TOOL_ERROR_PREFIX, never dropped.
// - `thinking` and `redacted_thinking` blocks in assistant turns are dropped. The proxy never
//   renders one (the upstream is chat completions, whose reply has no signed thinking), so such a
//   block came from elsewhere, and Anthropic's own API strips the thinking of earlier turns from
//   the model's context too; chat completions has no field that could take its signature.
// - `cache_control` is accepted and ignored: a caching hint, it changes no token the model reads.
// - Everything else that carries content chat completions cannot hold (images, documents, search
//   results, server tool blocks...) is refused, naming the block.
import type { ChatMessage, WireToolCall } from '../../../providers/chat.js';
import { isAbsent, isObject, isRefusal, refusal, uncarried } from './messages-refuse.js';
import type { WireRefusal } from './types.js';

/** What joins the text blocks of one message (and of one tool result) into one chat string. */
export const TEXT_SEPARATOR = '\n\n';

/** Put before the content of a tool result the agent marked `is_error: true`. */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Assistant blocks dropped on purpose (see the header); anything else unknown is refused. */
const DROPPED_ASSISTANT_BLOCKS = new Set(['thinking', 'redacted_thinking']);

/** The text of a `text` block, or a refusal: a string, and no citations (chat cannot carry them). */
function blockText(block: Record<string, unknown>, at: string): string | WireRefusal {
  if (typeof block.text !== 'string') return refusal(`${at}.text`, 'must be a string');
  if (!isAbsent(block.citations) && !(Array.isArray(block.citations) && block.citations.length === 0)) {
    return refusal(`${at}.citations`, 'citations cannot be carried onto chat completions');
  }
  return block.text;
}

/** The blocks of `content` as objects with a string type, or a refusal naming the first that is not. */
function blocksOf(content: unknown[], at: string): Record<string, unknown>[] | WireRefusal {
  for (const [j, block] of content.entries()) {
    if (!isObject(block)) return refusal(`${at}[${j}]`, 'must be a content block object');
    if (typeof block.type !== 'string') return refusal(`${at}[${j}].type`, 'must be a string');
  }
  return content as Record<string, unknown>[];
}

/** A string, or text blocks joined: `system`, a system message, a tool result's content. */
export function textOf(content: unknown, at: string): string | WireRefusal {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return refusal(at, 'must be a string or an array of text blocks');
  const blocks = blocksOf(content, at);
  if (isRefusal(blocks)) return blocks;
  const texts: string[] = [];
  for (const [j, block] of blocks.entries()) {
    if (block.type !== 'text') return uncarried(`${at}[${j}].type`, block.type);
    const text = blockText(block, `${at}[${j}]`);
    if (isRefusal(text)) return text;
    texts.push(text);
  }
  return texts.join(TEXT_SEPARATOR);
}

function toolResult(block: Record<string, unknown>, at: string): ChatMessage | WireRefusal {
  if (typeof block.tool_use_id !== 'string' || block.tool_use_id === '') return refusal(`${at}.tool_use_id`, 'must be a non-empty string');
  if (!isAbsent(block.is_error) && typeof block.is_error !== 'boolean') return refusal(`${at}.is_error`, 'must be a boolean');
  const text = isAbsent(block.content) ? '' : textOf(block.content, `${at}.content`);
  if (isRefusal(text)) return text;
  return { role: 'tool', tool_call_id: block.tool_use_id, content: block.is_error === true ? `${TOOL_ERROR_PREFIX}${text}` : text };
}

function userTurn(blocks: Record<string, unknown>[], at: string): ChatMessage[] | WireRefusal {
  const tools: ChatMessage[] = [];
  const texts: string[] = [];
  for (const [j, block] of blocks.entries()) {
    const where = `${at}[${j}]`;
    const part =
      block.type === 'text' ? blockText(block, where) : block.type === 'tool_result' ? toolResult(block, where) : uncarried(`${where}.type`, block.type);
    if (isRefusal(part)) return part;
    if (typeof part === 'string') texts.push(part);
    else tools.push(part);
  }
  // A turn of tool results only is just those; any other turn keeps its user message, even empty.
  if (texts.length === 0 && tools.length > 0) return tools;
  return [...tools, { role: 'user', content: texts.join(TEXT_SEPARATOR) }];
}

function toolUse(block: Record<string, unknown>, at: string): WireToolCall | WireRefusal {
  if (typeof block.id !== 'string' || block.id === '') return refusal(`${at}.id`, 'must be a non-empty string');
  if (typeof block.name !== 'string' || block.name === '') return refusal(`${at}.name`, 'must be a non-empty string');
  if (block.input === undefined) return refusal(`${at}.input`, 'is required');
  // Programmatic tool calling (a call made by server-side code execution) has no chat equivalent.
  if (!isAbsent(block.caller) && !(isObject(block.caller) && block.caller.type === 'direct')) return uncarried(`${at}.caller`, block.caller);
  // Canonical arguments: the input as sent, serialised once; the upstream reads JSON text.
  return { id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } };
}

function assistantTurn(blocks: Record<string, unknown>[], at: string): ChatMessage | WireRefusal {
  const calls: WireToolCall[] = [];
  const texts: string[] = [];
  for (const [j, block] of blocks.entries()) {
    const where = `${at}[${j}]`;
    if (DROPPED_ASSISTANT_BLOCKS.has(String(block.type))) continue;
    const part = block.type === 'text' ? blockText(block, where) : block.type === 'tool_use' ? toolUse(block, where) : uncarried(`${where}.type`, block.type);
    if (isRefusal(part)) return part;
    if (typeof part === 'string') texts.push(part);
    else calls.push(part);
  }
  // Chat wants content null beside tool calls with no text, and a string otherwise.
  const content = texts.length > 0 ? texts.join(TEXT_SEPARATOR) : calls.length > 0 ? null : '';
  return calls.length > 0 ? { role: 'assistant', content, tool_calls: calls } : { role: 'assistant', content };
}

function translateOne(m: unknown, at: string): ChatMessage[] | WireRefusal {
  if (!isObject(m)) return refusal(at, 'must be a message object');
  const { role, content } = m;
  if (role !== 'user' && role !== 'assistant' && role !== 'system') return refusal(`${at}.role`, 'must be "user", "assistant" or "system"');
  if (typeof content !== 'string' && !Array.isArray(content)) return refusal(`${at}.content`, 'must be a string or an array of content blocks');
  if (role === 'system') {
    // Mid-conversation system messages (Claude Code sends them) keep their place.
    const text = textOf(content, `${at}.content`);
    return isRefusal(text) ? text : [{ role: 'system', content: text }];
  }
  if (typeof content === 'string') return [{ role, content }];
  const blocks = blocksOf(content, `${at}.content`);
  if (isRefusal(blocks)) return blocks;
  if (role === 'user') return userTurn(blocks, `${at}.content`);
  const turn = assistantTurn(blocks, `${at}.content`);
  return isRefusal(turn) ? turn : [turn];
}

/** `system` (first, when sent) and `messages` as chat messages, or the first refusal. */
export function translateConversation(system: unknown, messages: unknown): ChatMessage[] | WireRefusal {
  const out: ChatMessage[] = [];
  if (!isAbsent(system)) {
    const text = textOf(system, 'system');
    if (isRefusal(text)) return text;
    out.push({ role: 'system', content: text });
  }
  if (!Array.isArray(messages)) return refusal('messages', 'must be an array of messages');
  for (const [i, m] of messages.entries()) {
    const translated = translateOne(m, `messages[${i}]`);
    if (isRefusal(translated)) return translated;
    out.push(...translated);
  }
  return out;
}

import { z } from 'zod';
import { InvalidChatRequestError } from './errors.js';

// Objects are loose: the scripted model accepts fields it does not use (top_p, user, metadata…)
// as real OpenAI-compatible servers do, but checks the ones it answers from.
const ContentPart = z.looseObject({ type: z.string().describe('e.g. "text"'), text: z.string().optional() });

const MessageToolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(MessageToolCall).optional(),
  tool_call_id: z.string().optional(),
});

const ToolSpecSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const ToolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
  // OpenAI's newer forms: an agent may send them, so they are answered (as 'auto' would be), not refused.
  z.looseObject({ type: z.enum(['allowed_tools', 'custom']) }),
]);

const positiveInt = z.number().int().positive();

/** zod schema of the chat completion request body the scripted model accepts. */
export const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  tools: z.array(ToolSpecSchema).optional(),
  tool_choice: ToolChoice.optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  max_tokens: positiveInt.nullable().optional(),
  max_completion_tokens: positiveInt.nullable().optional(),
  seed: z.number().int().nullable().optional(),
  n: z.literal(1).nullable().optional().describe('only one choice is ever produced'),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});

/** A validated chat completion request, as players receive it. */
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
/** One message of a chat request. */
export type ChatMessage = z.infer<typeof ChatMessageSchema>;
/** One tool the request offers (`tools[i]`). */
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/** Validates a parsed JSON body; throws `InvalidChatRequestError` naming the first bad field. */
export function parseChatRequest(body: unknown): ChatRequest {
  const result = ChatRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : null;
  const message = issue ? `${param ?? 'body'}: ${issue.message}` : 'invalid request body';
  throw new InvalidChatRequestError(`Invalid chat completion request: ${message}`, param, { cause: result.error });
}

/** The text of a message: the string content, or the text parts joined by newlines. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!content) return '';
  return content
    .map((part) => part.text ?? '')
    .filter((t) => t.length > 0)
    .join('\n');
}

/** The text of the last message of a request (what fault `match` rules and most players look at). */
export function lastMessageText(request: ChatRequest): string {
  const last = request.messages[request.messages.length - 1];
  return last ? messageText(last) : '';
}

/** The completion-token cap of a request, whichever of the two spellings it used. */
export function maxTokensOf(request: ChatRequest): number | null {
  return request.max_completion_tokens ?? request.max_tokens ?? null;
}

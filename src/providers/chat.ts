/** The chat messages evalog sends; a subset of the OpenAI wire format. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call on the wire. */
export interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool offered to the model: name, description and JSON-schema parameters. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One chat completion request as evalog builds it. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** Body fields sent as they are: sampling (temperature, max_tokens, seed, ...) and a forced `tool_choice`. */
  params: Record<string, unknown>;
}

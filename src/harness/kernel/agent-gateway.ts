// The seams of an external-agent job: what the gateway (HTTP: proxy and MCP) hands a job, what a
// job answers, and how the agent's process is described. Kept in one file so the gateway, the
// process runner and the job's recorder can be built and tested apart.
import type { ToolCallRequest, Usage } from '../../events/index.js';
import type { NativeRequest } from '../../providers/caller.js';
import type { ChatMessage, ToolSpec } from '../../providers/chat.js';

export type { AgentCommandSpec, AgentLimits } from '../agent-spec/index.js';

/** The client protocols the proxy speaks (each has its adapter in protocols/). */
export type WireProtocol = 'chat' | 'responses' | 'messages';

/** Who a model call is attributed to, as the agent names it (header or per-attribution base URL). */
export type AgentAttribution = 'main' | 'query' | 'child';

/** A chat completion request as an agent sent it to the proxy, parsed. */
export interface AgentModelRequest {
  attribution: AgentAttribution;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /**
   * Every other field of the body, forwarded as sent (temperature, max_tokens, tool_choice, ...),
   * except `model` (the run's model is sent), `stream` and `stream_options` (the proxy's own).
   */
  params: Record<string, unknown>;
  /** The agent asked for a stream (SSE); the proxy streams the completed response. */
  stream: boolean;
  /** `stream_options.include_usage`: a final chunk with usage. */
  includeUsage: boolean;
  /** The protocol the agent spoke (absent: chat completions, recorded as before). */
  protocol?: WireProtocol;
  /**
   * The agent's body as received, for a protocol other than chat completions: recorded (as a blob)
   * beside the translated request, and read by the adapter that renders the answer.
   */
  received?: Record<string, unknown>;
  /**
   * A pass-through request (the run's endpoint speaks `protocol` natively): this body goes upstream
   * unchanged and the answer comes back as received; messages, tools and params are then empty.
   */
  native?: NativeRequest;
}

/** What the proxy answers a model request with: a completion, or an OpenAI-shaped error. */
export type AgentModelReply =
  | {
      ok: true;
      /** The completion's id (stable: derived from the call's name, so a replayed answer is byte-identical). */
      id: string;
      model: string;
      content: string | null;
      toolCalls: ToolCallRequest[];
      finishReason: string | null;
      usage: Usage | null;
      /** A pass-through call's answer as the endpoint sent it: what the agent is given, byte for byte. */
      native?: { contentType: string; body: Buffer };
    }
  | {
      ok: false;
      status: number;
      /** Distinct code in `error.code`, e.g. `budget_exhausted`, `upstream_rate_limited`. */
      code: string;
      message: string;
    };

/** What a tool call over MCP answers. */
export interface AgentToolReply {
  result: string;
  isError: boolean;
}

/** What a job registers with the gateway: how its model and tool requests are answered. */
export interface AgentJobHandlers {
  model(request: AgentModelRequest): Promise<AgentModelReply>;
  /** The tools served over MCP (the suite's tools for this job). */
  tools(): readonly ToolSpec[];
  /** One tool call; `args` as the agent sent them (an object, or anything malformed). Never throws for agent mistakes. */
  callTool(name: string, args: unknown): Promise<AgentToolReply>;
}

/** A registered job's endpoints and token; `close` unregisters it (later requests get 401). */
export interface AgentEndpoints {
  /** OPENAI_BASE_URL: `http://127.0.0.1:PORT/jobs/KEY/v1`. */
  baseUrl: string;
  /** ANTHROPIC_BASE_URL: `http://127.0.0.1:PORT/jobs/KEY` (Anthropic's clients add `/v1/messages`). */
  anthropicBaseUrl: string;
  /** Base URL that attributes every call to `a`, for clients that cannot set headers. */
  attributionUrl(a: AgentAttribution): string;
  /** EVALOG_MCP_URL (streamable HTTP). */
  mcpUrl: string;
  /** OPENAI_API_KEY for the agent: accepted for this job's URLs only. */
  token: string;
  close(): void;
}

/** How a job's requests are served besides its handlers. */
export interface AgentJobOptions {
  /** Protocols passed through to the run's endpoint unchanged instead of translated (the endpoint speaks them). */
  passThrough?: readonly WireProtocol[];
}

/** One loopback HTTP server per process that serves every running external-agent job. */
export interface AgentGateway {
  register(handlers: AgentJobHandlers, options?: AgentJobOptions): AgentEndpoints;
  close(): Promise<void>;
}

// The seam between the recording proxy and the wire protocols agents speak. The proxy is generic
// over adapters: each protocol is one adapter of pure functions (no I/O, no clock), so a replayed
// answer renders to the same bytes as the live one.
//
// An agent's request is parsed and translated onto the chat completion request the job records
// and sends upstream (AgentModelRequest); the job's reply (AgentModelReply, the upstream answer as
// recorded) is rendered back in the agent's protocol, plain or as its SSE events.
import type { AgentAttribution, AgentModelReply, AgentModelRequest, WireProtocol } from '../../kernel/agent-gateway.js';

export type { WireProtocol } from '../../kernel/agent-gateway.js';

/** A reply that carries a completion. */
export type AgentCompletion = Extract<AgentModelReply, { ok: true }>;
/** A reply that carries an error. */
export type AgentFailure = Extract<AgentModelReply, { ok: false }>;

/** What the proxy sends back: a status, a content type and the exact body bytes (as text). */
export interface WireAnswer {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/**
 * A request the adapter refuses: it cannot be carried onto chat completions without loss (an
 * unknown content block, a hosted tool), or it is malformed. `field` is the body path, e.g.
 * `input[2].content[0].type`; the message names it too.
 */
export interface WireRefusal {
  refused: true;
  status: number;
  /** The protocol's own error code/type (e.g. `invalid_request_error`). */
  code: string;
  field: string;
  message: string;
}

/**
 * What a job remembers of its answered calls in one protocol, so a later request can refer back
 * (Responses' `previous_response_id`). Held per agent process by the gateway; a resumed agent
 * starts a new process that sends its requests again and gets the same ids back from the record.
 */
export interface ConversationMemory {
  /**
   * The chat messages kept under `key`, a key of the adapter's own (Responses: `response:<id>` for
   * a response's conversation ending with its reply, `item:<id>` for one output item's message).
   */
  recall(key: string): AgentModelRequest['messages'] | undefined;
  /** Keeps `conversation` under `key` (a copy: later changes to the array are not seen). */
  remember(key: string, conversation: AgentModelRequest['messages']): void;
}

/** One wire protocol's adapter. */
export interface ProtocolAdapter {
  readonly protocol: WireProtocol;
  /** Parses and translates the agent's body; `memory` resolves references to earlier responses. */
  parse(body: unknown, attribution: AgentAttribution, memory: ConversationMemory): AgentModelRequest | WireRefusal;
  /** The answer to `request` (plain or streamed, as it asked) from the job's completed reply. */
  render(reply: AgentCompletion, request: AgentModelRequest): WireAnswer;
  /** A job's error reply (budget, upstream failure, ended job) in the protocol's error shape. */
  failure(reply: AgentFailure): WireAnswer;
  /** A refusal or a gateway error (bad token, bad route) in the protocol's error shape; `field` is a refusal's. */
  error(status: number, code: string, message: string, field?: string): WireAnswer;
  /**
   * Keeps what a later request of the same process may refer to (a Responses reply's id and its
   * items' ids), after `reply` was rendered for `request`. Absent: the protocol refers to nothing.
   */
  remember?(reply: AgentCompletion, request: AgentModelRequest, memory: ConversationMemory): void;
}

import type { ChatRequest } from './request.js';

/** What a player gets besides the request: randomness that is a pure function of (request, seed). */
export interface PlayerContext {
  /** Uniform in [0, 1), seeded from the request (without `stream`/`stream_options`) and the server seed. */
  rng: () => number;
  /** The server seed. */
  seed: number;
}

/** One tool call a player asks for; the server assigns the id (`call_<hash prefix>_<i>`). */
export interface PlayerToolCall {
  name: string;
  /** Raw JSON arguments text, sent verbatim. */
  arguments: string;
}

/** A player's answer. `finishReason` defaults to 'tool_calls' when there are tool calls, else 'stop'. */
export interface PlayerReply {
  content?: string | null;
  toolCalls?: PlayerToolCall[];
  /** 'length' marks the reply as already cut by the player (a truncated answer on purpose). */
  finishReason?: 'stop' | 'length';
}

/**
 * Answers a chat request, or returns null to let the next player try. Must be a pure function of
 * its arguments (use `ctx.rng`, never Math.random or the clock) so that responses are deterministic.
 * The server asks its players in order; the first non-null reply answers; the built-in fallback
 * player answers everything else.
 */
export type Player = (request: ChatRequest, ctx: PlayerContext) => PlayerReply | null;

/** The kinds of injected faults. */
export const FAULT_KINDS = ['rate_limit', 'server_error', 'reset', 'timeout', 'malformed', 'empty_choices', 'truncated', 'no_usage'] as const;
/** One kind of injected fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * A fault injection rule. A request is eligible when `match` matches; it is faulted when every
 * given condition holds (no condition = every eligible request). The first rule that fires wins.
 */
export interface FaultRule {
  kind: FaultKind;
  /** Substring (string) or pattern (RegExp, or a string written `/source/flags`) tested against the last message text and the canonical body. */
  match?: string | RegExp;
  /** Inject at most this many times (counted per rule, since start or the last `setFaults`). */
  times?: number;
  /**
   * Probability in [0, 1], drawn deterministically from (seed, request hash, how many times that
   * same body was seen before): the first sending of a body always draws the same, and a retry of
   * it draws again, so a rate fault does not make a request fail forever.
   */
  rate?: number;
  /** Inject on every Nth eligible request (the Nth, 2Nth, …), counted per rule. */
  everyNth?: number;
  /** rate_limit only: value of the `retry-after` header (seconds, default 1). */
  retryAfterSeconds?: number;
  /** server_error only: 500 (default), 502 or 503 (any 5xx is accepted). */
  status?: number;
}

/** Fixed latency in ms, or a range from which each request draws deterministically. */
export type LatencyOption = number | { minMs: number; maxMs: number };

/** When to leave usage out of responses: never, always, or for a deterministic fraction of requests. */
export type OmitUsageOption = 'never' | 'always' | number;

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Server seed (default 0); responses are a pure function of (request, seed). */
  seed?: number;
  /** Players asked in order before the fallback. */
  players?: Player[];
  /** Model ids listed by GET /v1/models (default ['scripted']); requests may name any model. */
  models?: string[];
  /** Delay before each chat answer (default 0). */
  latencyMs?: LatencyOption;
  /** Default 'never'. */
  omitUsage?: OmitUsageOption;
  /** Cut the answer to max_tokens (finish_reason 'length') when it is longer (default true). */
  maxTokensTruncation?: boolean;
  /** Injected faults (default none); replaceable later with `setFaults`. */
  faults?: FaultRule[];
  /** How long a `timeout` fault holds a request before dropping the connection (default 30000). */
  timeoutCapMs?: number;
  /**
   * Other protocols' routes (e.g. `/v1/responses`, `/v1/messages`), each answered by translating
   * the request onto chat completions, playing it, and rendering the completion back. The server
   * knows no protocol but chat: `evalog mock-server` gives it the recording proxy's adapters.
   * Faults and `omitUsage` apply to chat completions only.
   */
  protocols?: Readonly<Record<string, ScriptedProtocol>>;
}

/** What a protocol route answers: a status, a content type and the body text. */
export interface ScriptedWireAnswer {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** One protocol a scripted server also speaks, by translation onto chat completions. */
export interface ScriptedProtocol {
  /**
   * The chat completion request body `body` (the request's text) translates to, with how to render
   * its completion (the chat completion body) back; or the answer at once (a refusal, bad JSON).
   */
  open(body: string): { chat: Record<string, unknown>; render(completion: Record<string, unknown>): ScriptedWireAnswer } | { answer: ScriptedWireAnswer };
}

/** Counters of one scripted model since start or the last reset. */
export interface ScriptedStats {
  /** POST /v1/chat/completions requests received, valid or not. */
  requests: number;
  /** Responses fully written with a usable chat completion (2xx; not malformed, not empty choices). */
  completed: number;
  /** Chat completion responses by HTTP status, plus 404s for unknown routes (reset and timeout faults send none). */
  byStatus: Record<string, number>;
  /** Injected faults by kind (only rules count, not the `omitUsage` option). */
  faults: Partial<Record<FaultKind, number>>;
  /** Valid requests received per request hash (sha256 of the canonical JSON body, see `requestHash`). */
  byRequestHash: Record<string, number>;
  /** Completed responses per request hash: a value above 1 means a completed call was sent again. */
  completedByRequestHash: Record<string, number>;
  /** Completed responses per X-Evalog-Call header (`<run>/<job>/<callId>`): above 1 = an attempt sent again. */
  completedByCallKey: Record<string, number>;
  /** Requests received per X-Evalog-Call header, answered or not: what the endpoint saw of each attempt. */
  requestsByCallKey: Record<string, number>;
  /** Completed responses sent without usage (by fault or by the `omitUsage` option). */
  usageOmitted: number;
  /** Model requests received per route (`/v1/chat/completions`, and each of `protocols`), answered or not. */
  requestsByPath: Record<string, number>;
  /**
   * Other protocols' routes only: per route, the sha256 of each request body's bytes as received,
   * counted; so a test sees that a pass-through request reached the server byte for byte.
   */
  bodiesByPath: Record<string, Record<string, number>>;
}

/** A running scripted model. */
export interface ScriptedModel {
  /** Base URL for an OpenAI client, `http://127.0.0.1:PORT/v1`. */
  url: string;
  port: number;
  seed: number;
  /** A copy of the counters. */
  stats(): ScriptedStats;
  /** Zeroes the counters (and the per-body occurrence counts that `rate` faults draw from). */
  resetStats(): void;
  /** Replaces the fault rules and their counters. */
  setFaults(rules: FaultRule[]): void;
  /** Stops listening, ends held-open requests and closes every connection. */
  close(): Promise<void>;
}

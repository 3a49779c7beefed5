import { z } from 'zod';
import { Attribution, BlobRef, ToolCallRequest, Usage } from './common.js';
import { eventSchema } from './envelope.js';

/** The protocols an endpoint may speak natively besides chat completions (a pass-through call's). */
export const NativeProtocol = z.enum(['responses', 'messages']);
export type NativeProtocol = z.infer<typeof NativeProtocol>;

/** Kinds of failed attempts; each is a distinct, recorded outcome. */
export const FailureKind = z.enum([
  'rate_limited', // 429
  'server_error', // 5xx
  'client_error', // other 4xx: not retried
  'connection', // refused / reset
  'timeout',
  'malformed', // body that is not a chat completion
  'empty_choices',
  'aborted', // stopped by an interrupt
  'unknown', // no outcome was recorded: the writer died while it was in flight (set on resume)
]);
export type FailureKind = z.infer<typeof FailureKind>;

/**
 * One attempt of a model call was sent. Messages are blob references, so long loops stay linear.
 * v2 added the `grading` attribution (judge calls); a v1 event is already a valid v2 one.
 */
export const ProviderCallRequested = eventSchema(
  'ProviderCallRequested',
  2,
  z.object({
    callId: z.string().describe('Causal name of the attempt, e.g. `worker/turn-3/attempt-1`'),
    attempt: z.number().int().positive(),
    retryOf: z.string().nullable().describe('callId of the failed attempt this one retries'),
    attribution: Attribution,
    model: z.string(),
    messages: z.array(BlobRef).describe('One blob per message, in order'),
    tools: z.array(z.string()).describe('Names of the tools offered'),
    params: z.record(z.string(), z.unknown()).describe('Sampling parameters sent'),
    protocol: NativeProtocol.optional().describe(
      "A pass-through call: the endpoint's own protocol the request was sent in, unchanged (messages, tools and params are then empty); absent = chat completions",
    ),
    body: BlobRef.optional().describe('Pass-through only: the request body exactly as sent to the endpoint (the bytes the agent sent)'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Pass-through only: protocol headers forwarded to the endpoint (e.g. anthropic-version); never a key'),
  }),
);

/**
 * The attempt returned a usable completion. v2 added the optional `cached`: the response cache (or a
 * regrade's source run) answered, and no request reached a provider. A v1 event is a valid v2 one.
 */
export const ProviderCallSucceeded = eventSchema(
  'ProviderCallSucceeded',
  2,
  z.object({
    callId: z.string(),
    content: z.string().nullable(),
    toolCalls: z.array(ToolCallRequest),
    finishReason: z.string().nullable().describe('"length" marks a truncated reply'),
    usage: Usage.nullable().describe('null when the response carried no usage at all'),
    latencyMs: z.number().nonnegative(),
    responseModel: z.string().nullable().optional().describe('The model id the response named, when it named one'),
    reportedUsage: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("The response's usage object as the provider sent it, every field kept (e.g. cache hit/miss tokens, nested details); absent when it sent none"),
    cached: z
      .string()
      .optional()
      .describe('sha256 key of the stored response that answered instead of a provider (no request was sent, nothing spent); absent = a provider answered'),
    answer: z
      .object({ blob: BlobRef.describe('The body exactly as received (JSON or the whole SSE stream)'), contentType: z.string() })
      .optional()
      .describe("Pass-through only: the endpoint's answer as received, which the agent is given as it is (content, tool calls and usage are read from it)"),
  }),
);

/**
 * The attempt failed; `retryable` says whether the policy may try again. v2 added the `unknown`
 * kind (an attempt cut off by a crash, recorded on resume); v3 added `stoppedBy` (an attempt the
 * worker's deadline aborted ends the call instead of being sent again). Older events are valid v3 ones.
 */
export const ProviderCallFailed = eventSchema(
  'ProviderCallFailed',
  3,
  z.object({
    callId: z.string(),
    kind: FailureKind,
    status: z.number().int().nullable().describe('HTTP status when there was one'),
    retryAfterMs: z.number().nonnegative().nullable(),
    message: z.string(),
    retryable: z.boolean(),
    latencyMs: z.number().nonnegative(),
    stoppedBy: z
      .literal('deadline')
      .optional()
      .describe(
        "kind aborted only: the worker's deadline (worker.timeLimitMs) aborted it, so the call ends here; absent = an interrupt (resume sends it again)",
      ),
  }),
);

/** Events of the provider family. */
export const ProviderEvents = [ProviderCallRequested, ProviderCallSucceeded, ProviderCallFailed] as const;

import { z } from 'zod';
import { Attribution, BlobRef, ToolCallRequest, Usage } from './common.js';
import { eventSchema } from './envelope.js';

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

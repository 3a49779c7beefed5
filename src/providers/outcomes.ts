import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { z } from 'zod';
import type { DataOf, FailureKind, Usage } from '../events/index.js';
import type { AttemptResult } from './caller.js';

type Failure = Omit<DataOf<'ProviderCallFailed'>, 'callId'>;

const completionShape = z.object({
  model: z.string().nullable().optional(),
  choices: z.array(
    z.object({
      finish_reason: z.string().nullable().optional(),
      message: z.object({
        content: z.string().nullable().optional(),
        tool_calls: z
          .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
          .nullable()
          .optional(),
      }),
    }),
  ),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative().nullable().optional(),
      completion_tokens: z.number().int().nonnegative().nullable().optional(),
      total_tokens: z.number().int().nonnegative().nullable().optional(),
      prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullable().optional() }).nullable().optional(),
    })
    .nullable()
    .optional(),
});

/** Turns a response body into a success, or into a `malformed` / `empty_choices` failure. */
export function parseCompletion(raw: unknown, latencyMs: number): AttemptResult {
  const parsed = completionShape.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.join('.') || 'body';
    return { ok: false, data: failure('malformed', null, `response is not a chat completion (field ${where})`, true, latencyMs) };
  }
  const choice = parsed.data.choices[0];
  if (!choice) return { ok: false, data: failure('empty_choices', 200, 'response has no choices', true, latencyMs) };
  const u = parsed.data.usage;
  const reported = isRecord(raw) && isRecord(raw.usage) ? raw.usage : null;
  const reasoning = reasoningTokens(reported);
  // Missing usage stays null: unknown is not zero.
  const usage: Usage | null = u
    ? {
        prompt: u.prompt_tokens ?? null,
        completion: u.completion_tokens ?? null,
        total: u.total_tokens ?? null,
        ...(typeof u.prompt_tokens_details?.cached_tokens === 'number' ? { cached: u.prompt_tokens_details.cached_tokens } : {}),
        // Absent, not null, when not reported: a usage recorded before the field existed reads the same.
        ...(reasoning === null ? {} : { reasoning }),
      }
    : null;
  return {
    ok: true,
    data: {
      content: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments })),
      finishReason: choice.finish_reason ?? null,
      usage,
      latencyMs,
      ...(typeof parsed.data.model === 'string' ? { responseModel: parsed.data.model } : {}),
      // Every field the provider reported (cache hit/miss counts, nested details), beside the counts above.
      ...(reported ? { reportedUsage: reported } : {}),
    },
  };
}

/**
 * A suite's stricter reading of an attempt (opted into by `strictReply` on its request): a
 * reply whose `choices[0].message.content` is not a string fails, and so does any body that is not
 * a chat completion, without retry. Network errors, timeouts, 429 and 5xx keep their retries.
 */
export function strictReply(r: AttemptResult): AttemptResult {
  if (r.ok) {
    if (typeof r.data.content === 'string') return r;
    return { ok: false, data: failure('malformed', null, 'response has no string choices[0].message.content', false, r.data.latencyMs) };
  }
  if (r.data.kind === 'malformed' || r.data.kind === 'empty_choices') return { ok: false, data: { ...r.data, retryable: false } };
  return r;
}

/**
 * `completion_tokens_details.reasoning_tokens` when it is a count. Read apart from the completion's
 * shape: a provider's odd details object is no reason to fail a reply that was fine before.
 */
function reasoningTokens(usage: Record<string, unknown> | null): number | null {
  const details = usage?.completion_tokens_details;
  const n = isRecord(details) ? details.reasoning_tokens : undefined;
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Classifies a thrown client error as a recorded failure kind. */
export function failureOf(err: unknown, latencyMs: number, aborted: boolean): Failure {
  if (aborted || err instanceof APIUserAbortError) return failure('aborted', null, 'aborted by interrupt', true, latencyMs);
  if (err instanceof APIConnectionTimeoutError) return failure('timeout', null, 'request timed out', true, latencyMs);
  if (err instanceof APIConnectionError) return failure('connection', null, `connection failed: ${causeText(err)}`, true, latencyMs);
  if (err instanceof APIError && typeof err.status === 'number') {
    const s = err.status;
    if (s === 429) return failure('rate_limited', s, 'rate limited (429)', true, latencyMs, retryAfterMs(err.headers));
    if (s >= 500) return failure('server_error', s, `server error (${s})`, true, latencyMs);
    return failure('client_error', s, `request rejected (${s})`, false, latencyMs);
  }
  if (err instanceof SyntaxError) return failure('malformed', null, 'response body is not JSON', true, latencyMs);
  return failure('malformed', null, `unreadable response: ${(err as Error)?.message ?? String(err)}`, true, latencyMs);
}

function failure(kind: FailureKind, status: number | null, message: string, retryable: boolean, latencyMs: number, retryAfter: number | null = null): Failure {
  return { kind, status, retryAfterMs: retryAfter, message, retryable, latencyMs };
}

// Only the retry-after value is read; no other response header is ever kept.
function retryAfterMs(headers: Headers | undefined): number | null {
  const v = headers?.get('retry-after-ms') ?? null;
  if (v !== null && Number.isFinite(Number(v))) return Number(v);
  const s = headers?.get('retry-after') ?? null;
  if (s !== null && Number.isFinite(Number(s))) return Number(s) * 1000;
  return null;
}

function causeText(err: Error): string {
  const c = (err as { cause?: { code?: string; message?: string } }).cause;
  return c?.code ?? c?.message ?? err.message;
}

// A pass-through attempt: the agent's body, unchanged, to the endpoint's own route of its protocol
// (`{baseURL}/responses`, `{baseURL}/messages`), with the run's key in the protocol's header in
// place of the job's token. The answer is read whole (a stream too) and returned as received.
import type { NativeProtocol } from '../events/index.js';
import type { CallOptions, NativeAttemptResult, NativeRequest } from './caller.js';
import { readNativeAnswer } from './native-answer.js';

/** The endpoint's route of each protocol, under its base URL (which ends in `/v1`, as for chat). */
export const NATIVE_ROUTES: Readonly<Record<NativeProtocol, string>> = { responses: '/responses', messages: '/messages' };

/** The version header Anthropic requires, sent when the agent sent none. */
export const DEFAULT_ANTHROPIC_VERSION = '2023-06-01';

/** The headers of a pass-through request: the key where the protocol takes it, and the forwarded ones. */
export function nativeHeaders(request: NativeRequest, apiKey: string, callKey?: string): Record<string, string> {
  const auth: Record<string, string> =
    request.protocol === 'messages'
      ? { 'x-api-key': apiKey, 'anthropic-version': request.headers['anthropic-version'] ?? DEFAULT_ANTHROPIC_VERSION }
      : { authorization: `Bearer ${apiKey}` };
  return { ...request.headers, ...auth, 'content-type': 'application/json', ...(callKey ? { 'x-evalog-call': callKey } : {}) };
}

type Failure = Extract<NativeAttemptResult, { ok: false }>;

/** Sends one pass-through attempt; provider-side failures are results, never thrown. */
export async function callNative(
  settings: { baseURL: string; apiKey: string; now(): number },
  request: NativeRequest,
  { signal, timeoutMs, callKey }: CallOptions,
): Promise<NativeAttemptResult> {
  const started = settings.now();
  const latency = () => Math.max(0, settings.now() - started);
  const timeout = AbortSignal.timeout(timeoutMs);
  const url = `${settings.baseURL.replace(/\/+$/, '')}${NATIVE_ROUTES[request.protocol]}`;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: nativeHeaders(request, settings.apiKey, callKey),
      body: request.body,
      signal: AbortSignal.any([signal, timeout]),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const contentType = res.headers.get('content-type') ?? 'application/json';
    if (!res.ok) return statusFailure(res.status, bytes.toString('utf8'), res.headers, latency());
    const read = readNativeAnswer(request.protocol, contentType, bytes.toString('utf8'), latency());
    if (!read.ok) return failure('malformed', null, read.message, true, latency());
    return { ok: true, data: read.data, answer: { bytes, contentType } };
  } catch (err) {
    if (signal.aborted) return failure('aborted', null, 'aborted by interrupt', true, latency());
    if (timeout.aborted) return failure('timeout', null, 'request timed out', true, latency());
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return failure('connection', null, `connection failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`, true, latency());
  }
}

function statusFailure(status: number, text: string, headers: Headers, latencyMs: number): Failure {
  // The endpoint's own words (its error body, bounded) say why; a key is never in them.
  const said = text.length > 500 ? `${text.slice(0, 500)}…` : text;
  if (status === 429) return failure('rate_limited', status, `rate limited (429): ${said}`, true, latencyMs, retryAfterMs(headers));
  if (status >= 500) return failure('server_error', status, `server error (${status}): ${said}`, true, latencyMs);
  return failure('client_error', status, `request rejected (${status}): ${said}`, false, latencyMs);
}

function retryAfterMs(headers: Headers): number | null {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && Number.isFinite(Number(ms))) return Number(ms);
  const s = headers.get('retry-after');
  return s !== null && Number.isFinite(Number(s)) ? Number(s) * 1000 : null;
}

function failure(
  kind: Failure['data']['kind'],
  status: number | null,
  message: string,
  retryable: boolean,
  latencyMs: number,
  retryAfter: number | null = null,
): Failure {
  return { ok: false, data: { kind, status, retryAfterMs: retryAfter, message, retryable, latencyMs } };
}

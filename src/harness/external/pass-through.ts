// A pass-through request: the agent's body as the job records and sends it when the run's endpoint
// speaks the protocol natively. Pure: what is sent is the agent's bytes, and the headers forwarded
// are the protocol's own (never a key: the caller adds the run's).
import type { IncomingHttpHeaders } from 'node:http';
import { canonicalJson } from '../../core/canonical.js';
import { comparedBody } from './record-only.js';
import type { WireRefusal } from './protocols/types.js';
import type { AgentAttribution, AgentModelRequest, WireProtocol } from '../kernel/agent-gateway.js';

/** Headers of the agent's request the endpoint is sent too: they change what the protocol means. */
export const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta', 'openai-beta'] as const;

/** The agent's forwarded headers that it sent, in a fixed order. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const v = headers[name];
    if (v !== undefined) out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * The request a pass-through call records and sends: no messages, tools or params of chat (the
 * body is the request), the body kept as received (matched on resume and replay) and its bytes
 * sent unchanged. Only a body that is no JSON object is refused: the endpoint judges the rest.
 */
export function passThroughRequest(
  protocol: WireProtocol,
  body: unknown,
  raw: Buffer,
  attribution: AgentAttribution,
  headers: Record<string, string>,
): AgentModelRequest | WireRefusal {
  if (protocol === 'chat') throw new Error('chat completions are never passed through: they are the upstream protocol already');
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    return { refused: true, status: 400, code: 'invalid_request_error', field: '', message: 'the request body must be a JSON object' };
  const received = body as Record<string, unknown>;
  return {
    attribution,
    messages: [],
    tools: [],
    params: {},
    stream: received.stream === true,
    includeUsage: false,
    protocol,
    received,
    native: { protocol, body: raw, headers, sameRequest: (recorded) => sameBody(protocol, recorded, received) },
  };
}

/** Whether recorded bytes are the same request as `body`, record-only fields aside (record-only.ts). */
function sameBody(protocol: 'responses' | 'messages', recorded: Uint8Array, body: Record<string, unknown>): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(recorded).toString('utf8'));
  } catch {
    return false;
  }
  return canonicalJson(comparedBody(protocol, parsed)) === canonicalJson(comparedBody(protocol, body));
}

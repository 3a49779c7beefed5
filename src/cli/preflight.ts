import { SCRIPTED_OWNER, type ModelEndpoint } from '../harness/endpoint/endpoint.js';
import { InputError } from './io.js';

// Long enough for a slow provider's first answer; a check that times out says nothing and the run goes on.
const PREFLIGHT_TIMEOUT_MS = 5000;
// Codes under a fetch failure that mean the endpoint cannot be reached at all.
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
};

/**
 * A free check of a real endpoint before anything is written: one `GET <base>/models`, with the
 * key as Bearer (the model calls send it anyway). A refused connection, an unknown host or a
 * refused key (401/403) is bad input naming the endpoint's variable and its origin (never the
 * key); a 404, a body that is not JSON, a timeout or another status means the provider has no such
 * list, and the run goes on. The answer also tells whether the endpoint is evalog's scripted model.
 */
export async function preflightEndpoint(command: string, endpoint: ModelEndpoint): Promise<ModelEndpoint> {
  if (endpoint.scripted) return endpoint;
  const origin = originOf(endpoint.baseURL);
  const where = `the endpoint from ${endpoint.baseUrlEnv} (${origin})`;
  let res: Response;
  try {
    const list = (headers: Record<string, string>) =>
      fetch(`${endpoint.baseURL.replace(/\/+$/, '')}/models`, { headers, signal: AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS) });
    res = await list({ authorization: `Bearer ${endpoint.apiKey}` });
    // An endpoint said to speak Anthropic's Messages (--endpoint-protocols) may take its key only as Anthropic's header.
    if ((res.status === 401 || res.status === 403) && endpoint.protocols?.includes('messages')) {
      await res.body?.cancel();
      res = await list({ 'x-api-key': endpoint.apiKey, 'anthropic-version': '2023-06-01' });
    }
  } catch (err) {
    const code = errorCode(err);
    if (code !== null && UNREACHABLE[code])
      throw new InputError(`evalog ${command}: cannot reach ${where}: ${UNREACHABLE[code]} (${code}); check ${endpoint.baseUrlEnv}`, { cause: err });
    // fetch never connects to a port on its blocklist (1, 9, 22, 25, …), so no model call could succeed either.
    if (causeMessages(err).includes('bad port'))
      throw new InputError(`evalog ${command}: cannot reach ${where}: its port is one fetch refuses to connect to; check ${endpoint.baseUrlEnv}`, {
        cause: err,
      });
    return endpoint;
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    const key = endpoint.apiKeyEnv ?? 'no API key variable set (EVALOG_API_KEY or --api-key-env)';
    throw new InputError(`evalog ${command}: ${where} refused the API key (HTTP ${res.status} at GET /models); check ${key}`);
  }
  if (!res.ok) {
    await res.body?.cancel();
    return endpoint;
  }
  try {
    const body = (await res.json()) as { data?: { owned_by?: unknown }[] };
    const scripted = Array.isArray(body?.data) && body.data.some((m) => m?.owned_by === SCRIPTED_OWNER);
    return scripted ? { ...endpoint, identifiesAsScripted: true } : endpoint;
  } catch {
    return endpoint;
  }
}

/** The URL's scheme, host and port: no path, no user or password. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(not a URL)';
  }
}

/** The system error code under a fetch failure (its cause chain, or one of an AggregateError's). */
function errorCode(err: unknown, depth = 0): string | null {
  if (depth > 5 || typeof err !== 'object' || err === null) return null;
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && UNREACHABLE[e.code]) return e.code;
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const code = errorCode(inner, depth + 1);
    if (code !== null) return code;
  }
  return null;
}

/** The messages along an error's cause chain. */
function causeMessages(err: unknown): string[] {
  const out: string[] = [];
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 6; e = (e as { cause?: unknown }).cause, depth += 1)
    out.push(String((e as { message?: unknown }).message));
  return out;
}

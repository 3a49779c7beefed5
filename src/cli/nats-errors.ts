import { InputError } from './io.js';

// The client's own error classes, by name (refused, timed out, credentials refused); an unknown host comes as Node's own error.
const UNREACHABLE = new Set(['ConnectionError', 'TimeoutError', 'AuthorizationError', 'UserAuthenticationExpiredError']);

/** A NATS server not listening, not found or refusing the credentials: one line naming the URL, or null for another error. */
export function natsUnreachable(url: string, err: unknown): InputError | null {
  const e = err as Error | undefined;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const dns = code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ECONNREFUSED' || code === 'EHOSTUNREACH';
  if (!e || !(UNREACHABLE.has(e.name) || dns)) return null;
  const what = e.name === 'AuthorizationError' || e.name === 'UserAuthenticationExpiredError' ? 'refused the credentials' : 'cannot be reached';
  return new InputError(`evalog: NATS at ${url} ${what} (${e.message}); check --nats or EVALOG_NATS_URL`, { cause: err });
}

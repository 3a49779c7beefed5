import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Name of the cookie the app gets once it has shown the token, so its own requests carry it. */
export const TOKEN_COOKIE = 'evalog_view_token';

/** True for names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** A fresh random token (192 bits), URL-safe. */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * Compares in constant time. Both sides are hashed first so that their lengths are equal, which
 * `timingSafeEqual` needs, and the length of the secret does not leak either.
 */
export function tokenMatches(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

/** The token a request carries: `?token=`, `Authorization: Bearer`, `X-Evalog-Token` or the cookie. */
export function requestToken(req: IncomingMessage, url: URL): string | null {
  const query = url.searchParams.get('token');
  if (query) return query;
  // Auth schemes are case-insensitive (RFC 9110 §11.1): `bearer` and `BEARER` are Bearer too.
  const bearer = /^bearer[ \t]+(.+)$/i.exec(req.headers.authorization ?? '');
  if (bearer) return bearer[1]!.trim();
  const header = req.headers['x-evalog-token'];
  if (typeof header === 'string' && header) return header;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === TOKEN_COOKIE) return decodeURIComponent(v.join('='));
  }
  return null;
}

/**
 * On loopback without a token, a page from any web site could still reach the server through DNS
 * rebinding (its own name resolving to 127.0.0.1); such requests carry that foreign name in Host,
 * so only loopback names are accepted there.
 */
export function loopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(host);
  return m !== null && isLoopbackHost(m[1]!);
}

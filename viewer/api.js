// The JSON API and the event stream, carrying the token when the page was opened with one.

const token = new URLSearchParams(location.search).get('token');

/** GETs an API path; throws with the server's message on failure. */
export async function api(p) {
  const res = await fetch(`/api${p}`, { headers: token ? { 'X-Evalog-Token': token } : {}, cache: 'no-store' });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw Object.assign(new Error(body.error ?? `HTTP ${res.status}`), { status: res.status, body });
  return body;
}

/** Opens the change stream (of one run, or of the runs list); returns a close function. */
export function changes(runId, onChange, onState) {
  const q = new URLSearchParams();
  if (runId) q.set('run', runId);
  if (token) q.set('token', token);
  const es = new EventSource(`/api/stream?${q}`);
  es.addEventListener('open', () => onState(true));
  es.addEventListener('error', () => onState(false));
  es.addEventListener('change', (m) => onChange(JSON.parse(m.data)));
  return () => es.close();
}

/** A URL of the API for a link (a download), carrying the token as a query parameter. */
export function apiUrl(p) {
  return token ? `/api${p}${p.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : `/api${p}`;
}

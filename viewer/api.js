// The JSON API and the event stream, carrying the token when the page was opened with one.

const token = new URLSearchParams(location.search).get('token');

/**
 * GETs an API path; throws with the server's message on failure. The answer is handed over only
 * while no pointer button is down (see `released`): every page draws what it gets at once.
 */
export async function api(p) {
  const res = await fetch(`/api${p}`, { headers: token ? { 'X-Evalog-Token': token } : {}, cache: 'no-store' });
  const body = await res.json().catch(() => ({ error: res.statusText }));
  await released();
  if (!res.ok) throw Object.assign(new Error(body.error ?? `HTTP ${res.status}`), { status: res.status, body });
  return body;
}

// A live page is drawn again a few times a second. A redraw between a button's press and its
// release swaps the element under the pointer, and the browser then fires no click at all: a
// link pressed on a running run's list or table was lost about once in ten. So fresh data waits
// for the release, and one task more, which lets the click (dispatched with the release) land on
// the element that was pressed. A release that never comes (the pointer lost) counts as one after
// 2 s, so it cannot hold up every later redraw.
const HOLD_MAX_MS = 2000;
let pressed = false;
let presses = 0; // which press a hold timer belongs to: one left from an earlier press must not end this one
let waiting = [];
const release = () => {
  pressed = false;
  const w = waiting;
  waiting = [];
  for (const fn of w) fn();
};
addEventListener('pointerdown', () => {
  pressed = true;
  presses += 1;
}, true);
for (const type of ['pointerup', 'pointercancel']) {
  addEventListener(type, () => {
    pressed = false;
    setTimeout(() => pressed || release(), 0);
  }, true);
}

/** Resolves when no pointer button is down (at once, usually). */
function released() {
  if (!pressed) return Promise.resolve();
  const press = presses;
  if (waiting.length === 0) setTimeout(() => pressed && press === presses && release(), HOLD_MAX_MS);
  return new Promise((resolve) => waiting.push(resolve));
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

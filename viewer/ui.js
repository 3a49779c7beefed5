// DOM helpers. Everything from the log goes in as text nodes, never as HTML: model replies and
// tool output are untrusted, and the page must show them, not run them.

/** Builds an element: attrs (class, data-*, on* handlers, other attributes) and children. */
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** Builds an SVG element. */
export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS('http://www.w3.org/2000/svg', tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A summary value exactly as summary.json has it: numbers unrounded, null as a dash, {} as "none". */
export function exact(v) {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return Array.isArray(v) ? JSON.stringify(v) : Object.keys(v).length === 0 ? 'none' : JSON.stringify(v);
  return String(v);
}

/** A number rounded for reading (tables of rows, charts); the summary table uses `exact`. */
export function num(v, digits = 2) {
  if (v === null || v === undefined) return '—';
  return Number.isInteger(v) ? String(v) : v.toFixed(digits);
}

/** A token sum with the calls it is missing, e.g. "20630" or "1200 (+3 unknown)". */
export function tokens(sum, unknownCalls) {
  const base = sum === null || sum === undefined ? 'unknown' : String(sum);
  return unknownCalls > 0 ? `${base} (+${unknownCalls} unknown)` : base;
}

/** Seconds as "12.3 s" or "2 min 5 s". */
export function duration(sec) {
  if (sec === null || sec === undefined) return '—';
  if (sec < 60) return `${sec.toFixed(1)} s`;
  return `${Math.floor(sec / 60)} min ${Math.round(sec % 60)} s`;
}

/** A coloured status or outcome badge. */
export function badge(text, kind = text) {
  return h('span', { class: ['badge', `b-${kind}`] }, text);
}

/** Hash link within the app. */
export function link(hash, ...children) {
  return h('a', { href: `#${hash}` }, ...children);
}

/** A titled section. */
export function section(title, id, ...children) {
  return h('section', { id }, h('h2', {}, title), ...children);
}

/** Colour index of an arm, stable in the order of the run's arms. */
export function armClass(arms, arm) {
  return `arm-${Math.max(0, arms.indexOf(arm)) % 6}`;
}

/** `#/a/b` paths with encoded parts. */
export function path(...parts) {
  return '/' + parts.map((p) => encodeURIComponent(p)).join('/');
}

/** Replaces an element's children, skipping absent ones (replaceChildren would print "null"). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

// The single-page app: a hash router over four pages, each re-rendered in place when the server
// says its run changed (server-sent events), so a running run updates without a reload.
import { changes } from './api.js';
import { h, link, path } from './ui.js';
import { runsPage } from './pages/runs.js';
import { runPage } from './pages/run.js';
import { jobPage } from './pages/job.js';
import { comparePage } from './pages/compare.js';
import { compareRunsPage } from './pages/compare-runs.js';

const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');
const live = document.getElementById('live');

let current = null; // { close(), refresh() } of the page shown

/** Parses the hash into a page and its parameters. */
function route() {
  const [p, query = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = (p || '/').split('/').filter(Boolean).map(decodeURIComponent);
  const q = new URLSearchParams(query);
  if (parts[0] === 'run' && parts.length === 2) return { page: runPage, runId: parts[1], params: { runId: parts[1] } };
  if (parts[0] === 'run' && parts[2] === 'job' && parts.length === 4) return { page: jobPage, runId: parts[1], params: { runId: parts[1], jobId: parts[3] } };
  if (parts[0] === 'run' && parts[2] === 'compare') return { page: comparePage, runId: parts[1], params: { runId: parts[1], a: q.get('a'), b: q.get('b') } };
  // The comparison listens to the runs list's stream, and redraws (a bootstrap again) for its own runs' changes alone.
  if (parts[0] === 'compare' && parts.length === 1)
    return { page: compareRunsPage, runId: null, watch: (q.get('runs') ?? '').split(',').filter(Boolean), params: { query: q, crumb: 'comparison' } };
  return { page: runsPage, runId: null, params: { query: q } };
}

function breadcrumbs(params) {
  const out = [link('/', 'runs')];
  if (params.runId) out.push(' / ', link(path('run', params.runId), params.runId));
  if (params.jobId) out.push(' / ', h('span', {}, params.jobId));
  if (params.crumb) out.push(' / ', h('span', {}, params.crumb));
  crumbs.replaceChildren(...out);
}

async function show() {
  current?.close();
  current = null;
  const { page, runId, watch, params } = route();
  breadcrumbs(params);
  // Each page draws into a root of its own: a refresh of the page before (its data still in
  // flight when the user navigated) then draws into a detached root, never over this page.
  const root = h('div', { class: 'page' }, h('p', { class: 'muted' }, 'Loading…'));
  main.replaceChildren(root);
  const shown = () => main.firstChild === root;
  const view = { refreshing: null, again: false, render: null };
  // One refresh at a time; changes that arrive meanwhile cause exactly one more.
  const refresh = async () => {
    if (!shown()) return;
    if (view.refreshing) return void (view.again = true);
    view.refreshing = (async () => {
      do {
        view.again = false;
        try {
          await view.render();
        } catch (err) {
          if (shown()) root.replaceChildren(h('p', { class: 'error', id: 'error' }, String(err.message ?? err)));
        }
      } while (view.again && shown());
    })();
    await view.refreshing;
    view.refreshing = null;
  };
  view.render = await page(root, params, () => refresh());
  await refresh();
  if (!shown()) return; // navigated away meanwhile: that page owns `current` now
  const stop = changes(runId, (d) => (!watch || watch.includes(d.runId) ? refresh() : undefined), (up) => {
    live.textContent = up ? 'live' : 'offline';
    live.className = up ? 'live on' : 'live';
  });
  current = { close: stop };
  document.body.dataset.page = page.name;
}

window.addEventListener('hashchange', () => void show());
void show();

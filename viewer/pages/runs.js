// The runs list: one line per run with its suite, model, pass rate, jobs, status, start and
// duration (calls and tokens beside, unknown counts shown). Sorted by a click on a column head,
// filtered by a text box; both kept across live refreshes. Runs ticked (in the order ticked: the
// first is the baseline) open the comparison of runs, of one arm of each when an arm is picked;
// the ticks and the arm live in the URL (#/?select=a,b&arm=A), so a reload shows them again.
import { api } from '../api.js';
import { percent } from '../format.js';
import { badge, duration, fill, h, link, path, section, tokens } from '../ui.js';

/** Columns: key, heading, the value sorted by. */
const COLUMNS = [
  ['run', 'run', (r) => r.runId],
  ['suite', 'suite', (r) => r.suite],
  ['model', 'model', (r) => r.model],
  ['pass', 'pass rate', (r) => r.passRate?.rate ?? null],
  ['done', 'jobs done', (r) => r.jobs.succeeded],
  ['failed', 'failed', (r) => r.jobs.failed],
  ['status', 'status', (r) => r.status],
  ['started', 'started', (r) => r.startedAt],
  ['duration', 'duration', (r) => r.elapsedSeconds],
  ['calls', 'calls', (r) => r.usage?.calls ?? null],
  ['tokens', 'tokens', (r) => r.usage?.total.sum ?? null],
];

/** Nulls last in either direction; ties by run id. */
function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return a < b ? -1 : 1;
}

/** The words a filter matches against: everything the line shows. */
const haystack = (r) => [r.runId, r.suite, r.model, r.status, r.arms.join(' '), r.startedAt, r.scripted ? 'scripted' : ''].join(' ').toLowerCase();

/** "2026-12-01 23:40:16 UTC" from the recorded ISO time. */
const when = (iso) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '—');

export async function runsPage(main, params = {}) {
  const q = params.query ?? new URLSearchParams();
  const state = { sort: 'run', dir: 1, runs: null, selected: new Set((q.get('select') ?? '').split(',').filter(Boolean)), arm: q.get('arm') ?? '' };
  const filter = h('input', { id: 'filter-runs', type: 'search', placeholder: 'filter runs (id, suite, model, status…)', oninput: () => draw() });
  const count = h('span', { id: 'runs-count', class: 'muted' });
  const box = h('div', { class: 'scroll' });
  const armPick = h('select', { id: 'compare-arm', title: 'compare one arm of each run (evalog compare --arm)', onchange: () => { state.arm = armPick.value; keep(); } });
  const compareButton = h('button', { id: 'compare-selected', type: 'button', onclick: () => openComparison() }, 'Compare selected');
  const chosen = h('span', { id: 'selected-runs', class: 'muted' });
  main.replaceChildren(section('Runs', 'runs-section',
    h('div', { class: 'filters' }, filter, count),
    h('div', { class: 'filters', id: 'compare-bar' }, compareButton, h('label', {}, 'arm ', armPick), chosen),
    box));

  // The URL without a navigation: replaceState fires no hashchange, so the page is not drawn again.
  function keep() {
    const p = new URLSearchParams();
    if (state.selected.size > 0) p.set('select', [...state.selected].join(','));
    if (state.arm) p.set('arm', state.arm);
    const query = p.toString();
    history.replaceState(null, '', `#/${query ? `?${query}` : ''}`);
    drawBar();
  }

  function openComparison() {
    const p = new URLSearchParams({ runs: [...state.selected].join(',') });
    if (state.arm) p.set('arm', state.arm);
    location.hash = `/compare?${p}`;
  }

  // Arms of the ticked runs (all runs while fewer than two are ticked); an arm some run lacks is marked, and the comparison says which.
  function drawBar() {
    const runs = state.runs ?? [];
    const picked = runs.filter((r) => state.selected.has(r.runId));
    const from = picked.length > 0 ? picked : runs;
    const arms = [...new Set([...from.flatMap((r) => r.arms), ...(state.arm ? [state.arm] : [])])].sort();
    fill(armPick, h('option', { value: '' }, 'every arm'),
      arms.map((a) => h('option', { value: a, selected: a === state.arm }, picked.every((r) => r.arms.includes(a)) ? a : `${a} (not in every run)`)));
    armPick.value = state.arm;
    compareButton.disabled = state.selected.size < 2;
    chosen.textContent = state.selected.size === 0 ? 'tick two or more runs to compare them (the first ticked is the baseline)'
      : [...state.selected].map((id, i) => (i === 0 ? `${id} (baseline)` : id)).join(' vs ');
  }

  function tick(runId, on) {
    if (on) state.selected.add(runId);
    else state.selected.delete(runId);
    keep();
    for (const el of box.querySelectorAll('td[data-col="select"] .order')) el.textContent = order(el.dataset.run);
  }
  const order = (runId) => {
    const i = [...state.selected].indexOf(runId);
    return i < 0 ? '' : String(i + 1);
  };

  function cell(r, key) {
    switch (key) {
      case 'select': return h('td', {}, h('input', { type: 'checkbox', class: 'select-run', 'data-run': r.runId, 'aria-label': `select ${r.runId}`, checked: state.selected.has(r.runId), onchange: (e) => tick(r.runId, e.target.checked) }),
        h('span', { class: 'order muted small', 'data-run': r.runId }, order(r.runId)));
      case 'run': return h('td', {}, link(path('run', r.runId), r.runId));
      case 'suite': return h('td', {}, r.suite ?? '—', r.scripted ? h('span', { class: 'muted', title: 'played by the scripted model, not a real model' }, ' (scripted)') : null);
      case 'model': return h('td', {}, r.model ?? '—');
      case 'pass': {
        const p = r.passRate;
        return h('td', { class: 'n', title: p && p.rate !== null ? `${p.passed} of ${p.graded} graded jobs passed (${p.rate})` : 'no graded job yet' },
          p && p.rate !== null ? [percent(p.rate), h('span', { class: 'muted small' }, ` ${p.passed}/${p.graded}`)] : '—');
      }
      case 'done': return h('td', { class: 'n' }, `${r.jobs.succeeded}/${r.jobs.planned}`, r.jobs.running ? h('span', { class: 'muted small' }, ` (${r.jobs.running} ${r.status === 'running' ? 'running' : 'unfinished'})`) : null);
      case 'failed': return h('td', { class: 'n' }, String(r.jobs.failed));
      case 'status': return h('td', {}, badge(r.status), r.error ? h('span', { class: 'error' }, ` ${r.error}`) : null);
      case 'started': return h('td', { title: r.startedAt ?? '' }, when(r.startedAt));
      case 'duration': return h('td', { class: 'n', title: r.elapsedSeconds ?? '' }, duration(r.elapsedSeconds));
      case 'calls': return h('td', { class: 'n' }, r.usage ? String(r.usage.calls) : '—');
      case 'tokens': return h('td', { class: 'n' }, r.usage ? tokens(r.usage.total.sum, r.usage.total.unknownCalls) : '—');
      default: return h('td', {});
    }
  }

  function draw() {
    const runs = state.runs;
    if (!runs) return;
    if (runs.length === 0) return void box.replaceChildren(h('p', { class: 'muted', id: 'no-runs' }, 'No runs here yet. Runs appear as soon as they start.'));
    const words = filter.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const by = COLUMNS.find(([k]) => k === state.sort)[2];
    const shown = runs.filter((r) => words.every((w) => haystack(r).includes(w)))
      .sort((a, b) => state.dir * compare(by(a), by(b)) || compare(a.runId, b.runId));
    count.textContent = `${shown.length} of ${runs.length} runs`;
    const th = ([key, heading]) => h('th', {
      class: ['sortable', state.sort === key && (state.dir > 0 ? 'asc' : 'desc')], 'data-sort': key,
      onclick: () => { state.dir = state.sort === key ? -state.dir : 1; state.sort = key; draw(); },
    }, heading);
    drawBar();
    box.replaceChildren(h('table', { id: 'runs', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', { title: 'tick runs to compare' }, '✓'), COLUMNS.map(th))),
      h('tbody', {}, shown.map((r) => h('tr', { 'data-run': r.runId, 'data-status': r.status },
        [['select'], ...COLUMNS].map(([key]) => {
          const td = cell(r, key);
          td.dataset.col = key;
          return td;
        }))))));
  }

  return async () => {
    state.runs = (await api('/runs')).runs;
    draw();
  };
}

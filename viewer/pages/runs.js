// The runs list: one line per run with its progress, calls and tokens (unknown counts beside).
import { api } from '../api.js';
import { badge, duration, h, link, path, section, tokens } from '../ui.js';

export async function runsPage(main) {
  return async () => {
    const { runs } = await api('/runs');
    const head = ['run', 'suite', 'arms', 'status', 'jobs done', 'running', 'failed', 'calls', 'tokens', 'elapsed'];
    const body = runs.map((r) =>
      h('tr', { 'data-run': r.runId },
        h('td', {}, link(path('run', r.runId), r.runId)),
        h('td', {}, r.suite ?? '—', r.scripted ? h('span', { class: 'muted', title: 'played by the scripted model, not a real model' }, ' (scripted)') : null),
        h('td', {}, r.arms.join(', ')),
        h('td', {}, badge(r.status), r.error ? h('span', { class: 'error' }, ` ${r.error}`) : null),
        h('td', { class: 'n', 'data-col': 'done' }, `${r.jobs.succeeded}/${r.jobs.planned}`),
        h('td', { class: 'n', 'data-col': 'running' }, String(r.jobs.running)),
        h('td', { class: 'n', 'data-col': 'failed' }, String(r.jobs.failed)),
        h('td', { class: 'n', 'data-col': 'calls' }, r.usage ? String(r.usage.calls) : '—'),
        h('td', { class: 'n', 'data-col': 'tokens' }, r.usage ? tokens(r.usage.total.sum, r.usage.total.unknownCalls) : '—'),
        h('td', { class: 'n' }, duration(r.elapsedSeconds)),
      ));
    main.replaceChildren(section('Runs', 'runs-section',
      runs.length === 0
        ? h('p', { class: 'muted', id: 'no-runs' }, 'No runs here yet. Runs appear as soon as they start.')
        : h('table', { id: 'runs', class: 'grid' }, h('thead', {}, h('tr', {}, head.map((c) => h('th', {}, c)))), h('tbody', {}, body)),
    ));
  };
}

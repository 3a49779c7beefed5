// Two arms side by side, case by case; discordant cases (one passed, the other not) stand out.
// McNemar and bootstrap figures are shown where the suite's summary has them.
import { api } from '../api.js';
import { badge, exact, h, link, num, path, section } from '../ui.js';

export async function comparePage(main, { runId, a, b }) {
  return async () => {
    const q = new URLSearchParams();
    if (a) q.set('a', a);
    if (b) q.set('b', b);
    const c = await api(`/runs/${encodeURIComponent(runId)}/compare?${q}`);
    const pick = (id, value) => h('select', {
      id, onchange: () => { location.hash = `${path('run', runId, 'compare')}?a=${encodeURIComponent(document.getElementById('arm-a').value)}&b=${encodeURIComponent(document.getElementById('arm-b').value)}`; },
    }, c.arms.map((x) => h('option', { value: x, selected: x === value }, x)));
    const side = (s) => (s ? [badge(s.outcome), s.job_id ? [' ', link(path('run', runId, 'job', s.job_id), 'job')] : null] : h('span', { class: 'muted' }, 'missing'));
    const t = c.table;
    main.replaceChildren(
      h('h1', {}, 'Paired comparison'),
      h('p', { class: 'filters' }, 'arm A ', pick('arm-a', c.a), ' vs arm B ', pick('arm-b', c.b)),
      section('Outcomes', 'table-section', h('table', { id: 'paired-table', class: 'grid small-table' },
        h('thead', {}, h('tr', {}, h('th', {}), h('th', {}, `B ${c.b} passed`), h('th', {}, `B ${c.b} did not`))),
        h('tbody', {},
          h('tr', {}, h('th', {}, `A ${c.a} passed`), h('td', { class: 'n', 'data-cell': 'both_pass' }, String(t.both_pass)), h('td', { class: 'n discordant', 'data-cell': 'only_a' }, String(t.only_a))),
          h('tr', {}, h('th', {}, `A ${c.a} did not`), h('td', { class: 'n discordant', 'data-cell': 'only_b' }, String(t.only_b)), h('td', { class: 'n', 'data-cell': 'both_fail' }, String(t.both_fail)))),
      ), t.incomplete ? h('p', { class: 'muted' }, `${t.incomplete} case(s) not graded under both arms yet`) : null),
      section('Paired statistics', 'stats-section', c.stats.length === 0
        ? h('p', { class: 'muted', id: 'no-stats' }, "This suite's summary has no McNemar or bootstrap figures.")
        : c.stats.map((blk) => h('div', { class: 'stats' }, h('h3', {}, blk.path || 'summary'),
          h('dl', { class: 'inline' }, blk.leaves.flatMap((l) => [h('dt', {}, l.path), h('dd', { 'data-field': `${blk.path}${blk.path && l.path ? '.' : ''}${l.path}` }, exact(l.value))]))))),
      section('Per case', 'pairs-section', h('table', { id: 'pairs', class: 'grid' },
        h('thead', {}, h('tr', {}, ['case', 'rep', `A: ${c.a}`, `B: ${c.b}`, 'tokens A', 'tokens B', 'seconds A', 'seconds B'].map((x) => h('th', {}, x)))),
        h('tbody', {}, c.pairs.map((p) => h('tr', { class: p.discordant ? 'discordant' : null, 'data-case': p.case, 'data-discordant': String(p.discordant) },
          h('td', {}, p.case), h('td', { class: 'n' }, p.repetition ?? '—'), h('td', {}, side(p.a)), h('td', {}, side(p.b)),
          h('td', { class: 'n' }, p.a?.tokens ?? '—'), h('td', { class: 'n' }, p.b?.tokens ?? '—'),
          h('td', { class: 'n' }, num(p.a?.seconds, 3)), h('td', { class: 'n' }, num(p.b?.seconds, 3))))))),
    );
  };
}

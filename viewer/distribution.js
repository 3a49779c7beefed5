// How each arm's jobs scored: pass rate by check (a dataset case's grader, a task's checks) side
// by side for the arms, and a histogram of scores where they are not only 0 or 1.
import { percent, round } from './format.js';
import { armClass, h, s } from './ui.js';

const W = 300;
const H = 110;

/** True when there is something to draw. */
export function hasDistribution(dist) {
  return dist.some((a) => a.byCheck.length > 0 || (a.histogram && a.histogram.length > 0));
}

function checkTable(arms, dist) {
  const checks = [...new Set(dist.flatMap((a) => a.byCheck.map((c) => c.check)))].sort();
  if (checks.length === 0) return null;
  return h('table', { id: 'by-check', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, 'check'), dist.map((a) => h('th', { 'data-arm': a.arm }, h('span', { class: ['swatch', armClass(arms, a.arm)] }), a.arm)))),
    h('tbody', {}, checks.map((check) => h('tr', { 'data-check': check },
      h('th', { class: 'field' }, check),
      dist.map((a) => {
        const c = a.byCheck.find((x) => x.check === check);
        if (!c) return h('td', { class: 'n', 'data-arm': a.arm }, '—');
        const rate = c.passed / c.total;
        return h('td', { class: 'n rate', 'data-arm': a.arm, title: `${c.passed} of ${c.total} passed (${rate})` },
          h('span', { class: ['meter', armClass(arms, a.arm)] }, h('span', { class: 'fill', 'data-w': Math.round(rate * 100) })),
          ` ${percent(rate)} `, h('span', { class: 'muted' }, `${c.passed}/${c.total}`));
      }),
    ))));
}

function histogram(arms, a) {
  const bins = a.histogram;
  const max = Math.max(1, ...bins.map((b) => b.count));
  const bw = (W - 20) / bins.length;
  return s('svg', { class: ['panel', 'histogram', armClass(arms, a.arm)], width: W, height: H + 30, viewBox: `0 0 ${W} ${H + 30}`, role: 'img', 'aria-label': `scores of ${a.arm}`, 'data-arm': a.arm },
    s('text', { x: 0, y: 14, class: 'panel-title' }, `${a.arm}: score (${a.scored} jobs)`),
    bins.map((b, i) => {
      const bh = (b.count / max) * (H - 30);
      return s('g', { 'data-lo': b.lo, 'data-count': b.count },
        s('title', {}, `${round(b.lo)} to ${round(b.hi)}: ${b.count} jobs`),
        s('rect', { x: 10 + i * bw, y: H - bh, width: Math.max(1, bw - 2), height: bh, class: 'bar' }));
    }),
    s('text', { x: 10, y: H + 16, class: 'value' }, round(bins[0].lo)),
    s('text', { x: W - 10, y: H + 16, class: 'value', 'text-anchor': 'end' }, round(bins.at(-1).hi)));
}

/** The distribution section's content. */
export function distribution(arms, dist) {
  const table = checkTable(arms, dist);
  const hists = dist.filter((a) => a.histogram && a.histogram.length > 0);
  const out = [];
  if (table) out.push(h('h3', {}, 'pass rate by check'), h('div', { class: 'scroll' }, table));
  if (hists.length) out.push(h('h3', {}, 'score (share of checks passed, or the row\'s score)'), h('div', { class: 'chart' }, hists.map((a) => histogram(arms, a))));
  // The meters' widths: CSP forbids inline styles, so they are set as properties after building.
  for (const el of out) for (const f of el.querySelectorAll?.('.fill[data-w]') ?? []) f.style.width = `${f.dataset.w}%`;
  return out;
}

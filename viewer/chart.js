// The arms compared in three panels: correctness (share of graded jobs that passed), tokens and
// seconds per job (box = middle half, whisker = min to max, dot = mean).
import { armClass, num, s } from './ui.js';

const PANEL_W = 300;
const LABEL_W = 110;
const ROW_H = 34;

function panel(title, arms, chart, draw) {
  const height = 28 + ROW_H * chart.length;
  return s('svg', { class: 'panel', width: PANEL_W, height, viewBox: `0 0 ${PANEL_W} ${height}`, role: 'img', 'aria-label': title },
    s('text', { x: 0, y: 16, class: 'panel-title' }, title),
    chart.map((c, i) => {
      const y = 28 + i * ROW_H;
      return s('g', { class: armClass(arms, c.arm), 'data-arm': c.arm },
        s('text', { x: 0, y: y + 18, class: 'arm-label' }, c.arm.length > 16 ? `${c.arm.slice(0, 15)}…` : c.arm),
        draw(c, y, PANEL_W - LABEL_W - 50));
    }));
}

function box(sp, max, y, w) {
  if (sp.n === 0 || max <= 0) return s('text', { x: LABEL_W, y: y + 18, class: 'value' }, 'no data');
  const x = (v) => LABEL_W + (v / max) * w;
  return [
    s('line', { x1: x(sp.min), x2: x(sp.max), y1: y + 14, y2: y + 14, class: 'whisker' }),
    s('rect', { x: x(sp.p25), y: y + 6, width: Math.max(1, x(sp.p75) - x(sp.p25)), height: 16, class: 'box' }),
    s('circle', { cx: x(sp.mean), cy: y + 14, r: 4, class: 'dot' }),
    s('text', { x: LABEL_W + w + 6, y: y + 18, class: 'value' }, num(sp.mean, sp.mean < 10 ? 2 : 0)),
  ];
}

/** The chart of a run page. */
export function armChart(arms, chart) {
  const maxTokens = Math.max(0, ...chart.map((c) => c.tokens.max ?? 0));
  const maxSeconds = Math.max(0, ...chart.map((c) => c.seconds.max ?? 0));
  return [
    panel('correctness (passed / graded)', arms, chart, (c, y, w) => {
      const r = c.correctness;
      if (r.rate === null) return s('text', { x: LABEL_W, y: y + 18, class: 'value' }, 'not graded');
      return [
        s('rect', { x: LABEL_W, y: y + 6, width: w, height: 16, class: 'track' }),
        s('rect', { x: LABEL_W, y: y + 6, width: Math.max(1, r.rate * w), height: 16, class: 'bar' }),
        s('text', { x: LABEL_W + w + 6, y: y + 18, class: 'value' }, `${r.passed}/${r.graded}`),
      ];
    }),
    panel('total tokens per job', arms, chart, (c, y, w) => box(c.tokens, maxTokens, y, w)),
    panel('seconds per job', arms, chart, (c, y, w) => box(c.seconds, maxSeconds, y, w)),
  ];
}

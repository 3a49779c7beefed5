// Runs (or one arm of each) side by side: `evalog compare` as a page. The server computes the
// comparison with the CLI's code and bootstrap settings; every figure here is rounded for reading
// with its exact value (what `evalog compare --json` prints) in the title. Below, one row per
// (case, repetition) and one column per side, flips marked, each cell opening that side's job.
// This page compares runs; the older page (#/run/<id>/compare) compares two arms of one run.
import { api } from '../api.js';
import { percent, round, seconds } from '../format.js';
import { badge, exact, fill, h, link, path, section } from '../ui.js';

/** Rate points with a sign: "+63.6 pp", "−9.1 pp", "±0 pp". */
const points = (v) => `${v > 0 ? '+' : v < 0 ? '−' : '±'}${String(Number(Math.abs(v * 100).toFixed(1)))} pp`;
const signed = (text, v) => `${v > 0 ? '+' : v < 0 ? '−' : '±'}${text(Math.abs(v))}`;
/** p to three significant digits, never shown as 0. */
const pText = (p) => (p < 0.001 ? '< 0.001' : round(p));

/** A figure: rounded text, the exact value in the title, its path in the JSON as data-field. */
function fig(tag, field, v, text, attrs = {}) {
  return h(tag, { ...attrs, 'data-field': field, title: exact(v) }, v === null || v === undefined ? '—' : text(v));
}

const caseName = (f) => (f.repetition === 1 ? f.case_id : `${f.case_id} (repetition ${f.repetition})`);

export async function compareRunsPage(main, { query }) {
  const q = new URLSearchParams(query);
  const runs = (q.get('runs') ?? '').split(',').filter(Boolean);
  const state = { onlyFlipped: false, data: null };
  const gridBox = h('div', { class: 'scroll' });
  const gridCount = h('span', { id: 'grid-count', class: 'muted' });

  // Back to the list with these runs still ticked.
  const back = () => {
    const p = new URLSearchParams({ select: runs.join(',') });
    if (q.get('arm')) p.set('arm', q.get('arm'));
    return h('a', { id: 'back-to-runs', href: `#/?${p}` }, 'change the selection');
  };

  function refusal(err) {
    const differences = err.body?.differences ?? [];
    const forced = new URLSearchParams(q);
    forced.set('force', '1');
    fill(main,
      h('h1', {}, 'Comparison of runs'),
      h('p', { class: 'error', id: 'compare-refused', 'data-status': err.status ?? '' }, String(err.message ?? err)),
      differences.length === 0 ? null : [
        h('p', {}, 'The runs differ in what they were graded against, so their verdicts may not be comparable:'),
        h('ul', { id: 'compare-differences' }, differences.map((d) => h('li', {}, d))),
        h('p', {}, h('a', { id: 'compare-anyway', href: `#/compare?${forced}` }, 'Compare anyway'), h('span', { class: 'muted' }, ' (as evalog compare --force: only the (case, repetition)s both sides hold are paired)')),
      ],
      h('p', {}, back()),
    );
  }

  function sides(c) {
    const cols = ['side', 'run', 'arm', 'suite', 'model', 'jobs', 'graded', 'passed', 'pass rate'];
    return h('table', { id: 'sides', class: 'grid' },
      h('thead', {}, h('tr', {}, cols.map((x) => h('th', {}, x)))),
      h('tbody', {}, c.sides.map((s, i) => h('tr', { 'data-side': s.name },
        h('td', {}, s.name, i === 0 ? h('span', { class: 'muted small' }, ' baseline') : null),
        h('td', {}, link(path('run', s.run_id), s.run_id)), h('td', {}, s.arm), h('td', {}, s.suite), h('td', {}, s.model),
        fig('td', `sides.${i}.jobs`, s.jobs, String, { class: 'n' }),
        fig('td', `sides.${i}.graded`, s.graded, String, { class: 'n' }),
        fig('td', `sides.${i}.passed`, s.passed, String, { class: 'n' }),
        fig('td', `sides.${i}.rate`, s.graded === 0 ? null : s.passed / s.graded, percent, { class: 'n' })))));
  }

  // One cost line: mean per paired job on each side, the difference, and the pairs it is over or not.
  function cost(name, d, field, text) {
    return h('tr', { 'data-cost': field },
      h('th', {}, name),
      fig('td', `${field}.mean_a`, d.mean_a, text, { class: 'n' }),
      fig('td', `${field}.mean_b`, d.mean_b, text, { class: 'n' }),
      fig('td', `${field}.mean_difference`, d.mean_difference, (v) => signed(text, v), { class: 'n' }),
      fig('td', `${field}.known`, d.known, String, { class: 'n' }),
      fig('td', `${field}.unknown`, d.unknown, String, { class: ['n', d.unknown > 0 && 'warn'] }));
  }

  function comparison(x, i, b) {
    const u = x.unpaired;
    const boot = x.bootstrap;
    const level = `${Math.round((1 - b.alpha) * 100)} % CI`;
    const flips = (list, key) => h('dd', { 'data-flips': key }, list.length === 0 ? '—' : list.map((f, k) => [k ? ', ' : '', h('a', { href: `#grid-${f.case_id}-${f.repetition}`, class: 'flip-link', onclick: (e) => jump(e, f) }, caseName(f))]));
    return h('section', { class: 'comparison', id: `comparison-${i}`, 'data-comparison': String(i) },
      h('h2', {}, `${x.a} vs ${x.b}`),
      h('dl', { class: 'inline' },
        h('dt', {}, 'paired jobs'), h('dd', {}, fig('span', 'n', x.n, String), ' graded on both sides'),
        h('dt', {}, 'unpaired'), h('dd', {}, fig('span', 'unpaired.total', u.total, String),
          h('span', { class: 'muted' }, ' — not in ', x.a, ': ', fig('span', 'unpaired.missing_a', u.missing_a, String), ', not in ', x.b, ': ', fig('span', 'unpaired.missing_b', u.missing_b, String),
            ', failed or unfinished in ', x.a, ': ', fig('span', 'unpaired.ungraded_a', u.ungraded_a, String), ', in ', x.b, ': ', fig('span', 'unpaired.ungraded_b', u.ungraded_b, String))),
        h('dt', {}, `passed (${x.a})`), h('dd', {}, fig('span', 'passed_a', x.passed_a, String), ' = ', fig('span', 'rate_a', x.rate_a, percent)),
        h('dt', {}, `passed (${x.b})`), h('dd', {}, fig('span', 'passed_b', x.passed_b, String), ' = ', fig('span', 'rate_b', x.rate_b, percent)),
        h('dt', {}, 'exact McNemar p'), h('dd', {}, fig('span', 'mcnemar_p', x.mcnemar_p, pText)),
        h('dt', {}, `difference (${x.b} − ${x.a})`), h('dd', {}, boot === null ? '— (nothing paired)' : [
          fig('span', 'bootstrap.difference', boot.difference, points), ', ', level, ' [', fig('span', 'bootstrap.lower', boot.lower, points), ', ', fig('span', 'bootstrap.upper', boot.upper, points), ']',
          h('span', { class: 'muted small' }, ' paired bootstrap, seed ', fig('span', 'bootstrap.seed', boot.seed, String), ', ', fig('span', 'bootstrap.iterations', boot.iterations, String), ' resamples, alpha ', fig('span', 'bootstrap.alpha', boot.alpha, String))]),
      ),
      h('table', { class: 'grid small-table discordance' },
        h('thead', {}, h('tr', {}, h('th', {}), h('th', {}, `${x.b} passed`), h('th', {}, `${x.b} did not`))),
        h('tbody', {},
          h('tr', {}, h('th', {}, `${x.a} passed`), fig('td', 'both', x.both, String, { class: 'n' }), fig('td', 'a_only', x.a_only, String, { class: 'n discordant' })),
          h('tr', {}, h('th', {}, `${x.a} did not`), fig('td', 'b_only', x.b_only, String, { class: 'n discordant' }), fig('td', 'neither', x.neither, String, { class: 'n' })))),
      h('h3', {}, 'Cost per paired job'),
      h('div', { class: 'scroll' }, h('table', { class: 'grid costs' },
        h('thead', {}, h('tr', {}, ['', `mean ${x.a}`, `mean ${x.b}`, `${x.b} − ${x.a}`, 'pairs known', 'pairs with unknown usage or time'].map((t) => h('th', {}, t)))),
        h('tbody', {},
          cost('input tokens', x.tokens.input, 'tokens.input', round),
          cost('output tokens', x.tokens.output, 'tokens.output', round),
          cost('total tokens', x.tokens.total, 'tokens.total', round),
          cost('time', x.seconds, 'seconds', seconds)))),
      h('h3', {}, 'Flipped cases'),
      h('dl', { class: 'inline' },
        h('dt', {}, `only ${x.a} passed`), flips(x.flipped.a_only, 'a_only'),
        h('dt', {}, `only ${x.b} passed`), flips(x.flipped.b_only, 'b_only')),
    );
  }

  function jump(e, f) {
    e.preventDefault(); // a #grid-… hash would be taken for a page by the router
    document.getElementById(`grid-${f.case_id}-${f.repetition}`)?.scrollIntoView({ block: 'center' });
  }

  function drawGrid() {
    const { comparison: c, grid } = state.data;
    const shown = grid.filter((g) => !state.onlyFlipped || g.flips.length > 0);
    gridCount.textContent = `${shown.length} of ${grid.length} (case, repetition)s, ${grid.filter((g) => g.flips.length > 0).length} flipped`;
    const cell = (g, s) => {
      const x = g.cells[s.name];
      if (!x) return h('td', { 'data-side': s.name, 'data-outcome': 'missing' }, h('span', { class: 'muted' }, 'missing'));
      return h('td', { 'data-side': s.name, 'data-outcome': x.outcome }, badge(x.outcome, x.outcome === 'ungraded' || x.outcome === 'unfinished' ? 'done' : x.outcome),
        x.job_id ? [' ', h('a', { class: 'transcript', href: `#${path('run', s.run_id, 'job', x.job_id)}`, title: `${s.run_id} / ${x.job_id}` }, 'transcript')] : null);
    };
    const flipMarks = (g) => g.flips.map((f, k) => {
      const x = c.comparisons[f.comparison];
      return h('span', { class: 'flip', 'data-comparison': String(f.comparison), 'data-passed': f.passed, title: `${x.a} vs ${x.b}: only ${f.passed} passed` }, k ? ', ' : '', `⇄ only ${f.passed}`);
    });
    const line = (g) => h('tr', {
      id: `grid-${g.case_id}-${g.repetition}`, class: g.flips.length > 0 ? 'discordant' : null,
      'data-case': g.case_id, 'data-repetition': String(g.repetition), 'data-flipped': String(g.flips.length > 0),
    },
    h('td', {}, g.case_id), h('td', { class: 'n' }, String(g.repetition)),
    c.sides.map((s) => cell(g, s)),
    h('td', { class: 'flips' }, flipMarks(g)));
    gridBox.replaceChildren(h('table', { id: 'case-grid', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'case'), h('th', {}, 'rep'), c.sides.map((s) => h('th', {}, s.name)), h('th', {}, 'flipped'))),
      h('tbody', {}, shown.map(line))));
  }

  return async () => {
    const asked = new URLSearchParams({ runs: runs.join(',') });
    for (const k of ['arm', 'force', 'seed']) if (q.get(k)) asked.set(k, q.get(k));
    let data;
    try {
      data = await api(`/compare?${asked}`);
    } catch (err) {
      if (err.status >= 400 && err.status < 500) return refusal(err);
      throw err;
    }
    state.data = data;
    const c = data.comparison;
    const b = c.bootstrap;
    const onlyFlipped = h('input', { type: 'checkbox', id: 'only-flipped', checked: state.onlyFlipped, onchange: () => { state.onlyFlipped = onlyFlipped.checked; drawGrid(); } });
    fill(main,
      h('h1', {}, 'Comparison of runs'),
      h('p', { class: 'meta', id: 'compare-meta' }, 'Jobs paired by case and repetition; the first side is the baseline. Bootstrap seed ',
        fig('span', 'bootstrap.seed', b.seed, String), ', ', fig('span', 'bootstrap.iterations', b.iterations, String), ' resamples, ',
        fig('span', 'bootstrap.alpha', b.alpha, (v) => `${Math.round((1 - v) * 100)} % CI`), ' — the figures of evalog compare ', runs.join(' '),
        q.get('arm') ? ` --arm ${q.get('arm')}` : '', q.get('force') ? ' --force' : '', ' --json. ', back()),
      c.differences.length === 0 ? null : h('div', { id: 'forced', class: 'note' }, 'Compared with force although:', h('ul', {}, c.differences.map((d) => h('li', { 'data-difference': d }, d)))),
      section('Sides', 'sides-section', h('div', { class: 'scroll' }, sides(c))),
      c.comparisons.map((x, i) => comparison(x, i, b)),
      section('Per case', 'grid-section', h('div', { class: 'filters' }, h('label', {}, onlyFlipped, ' only flipped cases'), gridCount), gridBox),
    );
    drawGrid();
  };
}

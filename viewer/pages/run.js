// A run: per-arm summary (summary.json's figures, labelled and rounded, exact on hover), the chart,
// the score distribution, the rows table and usage by attribution. The table is filtered, searched,
// sorted and paged by the server (a 10 000-job run stays a page of rows in the browser); its query
// lives in the URL hash, so a reload, a shared link or the back button shows the same rows, and
// the downloads and the job page's previous/next use the same query. Sections with nothing are left out.
import { api, apiUrl } from '../api.js';
import { armChart } from '../chart.js';
import { distribution, hasDistribution } from '../distribution.js';
import { figure, label, round, seconds } from '../format.js';
import { armClass, badge, duration, fill, h, link, path, section, tokens } from '../ui.js';

const OUTCOMES = ['pass', 'fail', 'error', 'done', 'running'];
const COLUMNS = [
  ['job_id', 'job'], ['case', 'case'], ['arm', 'arm'], ['repetition', 'rep'], ['outcome', 'outcome'], ['tokens', 'tokens'], ['seconds', 'seconds'], ['score', 'score'],
];
/** What a reader looks for in a row, shown cut to a line; a click opens the whole text. */
const TEXTS = [['input', 'input'], ['output', 'output'], ['expected', 'expected'], ['reason', 'reason']];
const SIZES = [25, 50, 100, 200, 500];
const DEFAULTS = { q: '', case: '', arm: '', outcome: '', sort: 'job_id', dir: 'asc', page: 1, size: 100 };

/** The table's query from the hash (`#/run/<id>?q=…&arm=…`); unknown values are left to the server to refuse. */
export function queryOf(hash) {
  const p = new URLSearchParams(hash.split('?')[1] ?? '');
  const q = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (p.has(k)) q[k] = typeof DEFAULTS[k] === 'number' ? Number(p.get(k)) || DEFAULTS[k] : p.get(k);
  return q;
}

/** The query as URL parameters, defaults left out; `paged` false drops page and size (downloads take every matching row). */
export function queryString(q, paged = true) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (!paged && (k === 'page' || k === 'size')) continue;
    if (v !== DEFAULTS[k]) p.set(k, String(v));
  }
  return p.toString();
}

export async function runPage(main, { runId }, refresh) {
  const state = { query: queryOf(location.hash), data: null, timer: null };
  const want = () => queryString(state.query);
  const runHash = () => path('run', runId);

  const search = h('input', { id: 'search', type: 'search', placeholder: 'search inputs, outputs, checks…', value: state.query.q, oninput: () => change({ q: search.value }, 250) });
  const filterCase = h('input', { id: 'filter-case', type: 'search', placeholder: 'case contains…', value: state.query.case, oninput: () => change({ case: filterCase.value }, 250) });
  const filterArm = h('select', { id: 'filter-arm', onchange: () => change({ arm: filterArm.value }) });
  const filterOutcome = h('select', { id: 'filter-outcome', onchange: () => change({ outcome: filterOutcome.value }) },
    h('option', { value: '' }, 'any outcome'), OUTCOMES.map((o) => h('option', { value: o }, o)));
  filterOutcome.value = state.query.outcome;
  const size = h('select', { id: 'page-size', onchange: () => change({ size: Number(size.value) }) }, SIZES.map((n) => h('option', { value: n }, `${n} a page`)));
  size.value = String(state.query.size);
  const parts = {
    head: h('div', { id: 'run-head' }),
    summary: h('div', { class: 'scroll' }),
    chart: h('div', { id: 'chart', class: 'chart' }),
    distribution: h('div', { id: 'distribution' }),
    rows: h('div', { class: 'scroll' }),
    count: h('span', { id: 'rows-count', class: 'muted' }),
    pager: h('span', { id: 'pager', class: 'pager' }),
    downloads: h('span', { class: 'downloads' }),
    usage: h('div', { class: 'scroll' }),
  };
  const sections = {
    summary: section('Summary per arm', 'summary-section', parts.summary),
    chart: section('Arms compared', 'chart-section', parts.chart),
    distribution: section('Score distribution per arm', 'distribution-section', parts.distribution),
    rows: section('Rows', 'rows-section',
      h('div', { class: 'filters' }, search, filterCase, filterArm, filterOutcome, size, parts.count, parts.downloads),
      parts.rows, h('div', { class: 'filters' }, parts.pager)),
    usage: section('Usage by attribution', 'usage-section', parts.usage),
  };
  for (const el of Object.values(sections)) el.hidden = true;
  main.replaceChildren(parts.head, ...Object.values(sections));

  /**
   * A new query: into the hash at once (replaceState: no page change, no history entry per key), then
   * drawn. The rows section is marked busy until the rows of the latest query are drawn.
   */
  function change(patch, delay = 0) {
    Object.assign(state.query, patch, 'page' in patch ? {} : { page: 1 });
    const qs = want();
    history.replaceState(null, '', `#${runHash()}${qs ? `?${qs}` : ''}`);
    sections.rows.dataset.busy = 'true';
    clearTimeout(state.timer);
    state.timer = setTimeout(() => void refresh(), delay);
  }

  function drawRows(d) {
    const t = d.table;
    const q = state.query;
    parts.count.textContent = `${t.matched} of ${t.total} rows`;
    const down = queryString(q, false);
    const at = (ext) => apiUrl(`/runs/${encodeURIComponent(runId)}/rows.${ext}${down ? `?${down}` : ''}`);
    fill(parts.downloads, 'download ', h('a', { id: 'download-csv', href: at('csv'), download: `${runId}-rows.csv` }, 'CSV'), ' · ',
      h('a', { id: 'download-jsonl', href: at('jsonl'), download: `${runId}-rows.jsonl` }, 'JSON Lines'));
    const go = (page) => h('button', { type: 'button', disabled: page < 1 || page > t.pages || page === t.page, onclick: () => change({ page }) });
    const prev = go(t.page - 1);
    prev.id = 'page-prev';
    prev.textContent = '← previous';
    const next = go(t.page + 1);
    next.id = 'page-next';
    next.textContent = 'next →';
    fill(parts.pager, prev, h('span', { id: 'page-at', class: 'muted' }, ` page ${t.page} of ${t.pages} `), next);
    const texts = TEXTS.filter(([k]) => t.rows.some((r) => r[k] !== null));
    // A score column only where scores are more than pass or fail (the outcome says that already).
    const scored = d.distribution.some((a) => a.histogram !== null);
    const cols = COLUMNS.filter(([k]) => k !== 'score' || scored);
    const th = (key, text) => h('th', {
      class: ['sortable', q.sort === key && (q.dir === 'asc' ? 'asc' : 'desc')], 'data-sort': key,
      onclick: () => change({ sort: key, dir: q.sort === key && q.dir === 'asc' ? 'desc' : 'asc' }),
    }, text);
    const jobQuery = queryString({ ...q, page: DEFAULTS.page, size: DEFAULTS.size });
    parts.rows.replaceChildren(h('table', { id: 'rows', class: 'grid', 'data-query': want() },
      h('thead', {}, h('tr', {}, cols.map(([k, l]) => th(k, l)), texts.map(([, l]) => h('th', {}, l)))),
      h('tbody', {}, t.rows.map((r) => h('tr', { 'data-job': r.job_id ?? '', 'data-outcome': r.outcome, 'data-arm': r.arm, 'data-case': r.case_id },
        h('td', {}, r.job_id ? link(`${path('run', runId, 'job', r.job_id)}${jobQuery ? `?${jobQuery}` : ''}`, r.job_id) : '—'),
        h('td', {}, r.case_id),
        h('td', {}, h('span', { class: ['swatch', armClass(d.arms, r.arm)] }), r.arm),
        h('td', { class: 'n' }, r.repetition ?? '—'),
        // A killed run's jobs in flight will not finish unless the run is resumed.
        h('td', {}, d.digest.status === 'interrupted' && r.outcome === 'running' ? badge('unfinished', 'interrupted') : badge(r.outcome)),
        h('td', { class: 'n', title: r.tokens_complete ? '' : 'some calls did not report usage' }, r.tokens === null ? 'unknown' : `${r.tokens}${r.tokens_complete ? '' : '+'}`),
        h('td', { class: 'n', title: r.seconds ?? '' }, seconds(r.seconds)),
        scored ? h('td', { class: 'n', title: r.score ?? '' }, r.score === null ? '—' : round(r.score)) : null,
        texts.map(([k]) => textCell(k, r[k])),
      ))),
    ));
    if (want() === d.asked) delete sections.rows.dataset.busy;
  }

  return async () => {
    const asked = want();
    const d = await api(`/runs/${encodeURIComponent(runId)}/page${asked ? `?${asked}` : ''}`);
    d.asked = asked;
    state.data = d;
    const g = d.digest;
    fill(parts.head,
      h('h1', {}, runId, ' ', h('span', { id: 'run-status' }, badge(g.status))),
      d.header ? h('p', { class: 'meta' }, `suite ${d.header.suite} · model ${d.header.model} · seed ${d.header.seed} · concurrency ${d.header.concurrency} · config ${d.header.config_hash.slice(0, 12)}`) : null,
      d.header?.note ? h('p', { class: 'note' }, d.header.note) : null,
      h('p', { class: 'progress' },
        'jobs done ', h('strong', { id: 'jobs-done' }, String(g.jobs.succeeded)), ` of ${g.jobs.planned}`,
        g.status === 'interrupted' ? ' · unfinished ' : ' · running ', h('strong', { id: 'jobs-running' }, String(g.jobs.running)),
        ' · failed ', h('strong', { id: 'jobs-failed' }, String(g.jobs.failed)),
        ` · ${g.events} events · elapsed ${duration(g.elapsedSeconds)}`),
      g.status === 'interrupted' ? h('p', { class: 'note', id: 'interrupted-note' }, 'Interrupted: its writer stopped before the end; evalog resume can finish it.') : null,
      d.arms.length >= 2 ? h('p', {}, link(`${path('run', runId, 'compare')}`, h('span', { id: 'compare-link' }, `Compare arms (${d.arms.join(' vs ')}) →`))) : null,
      d.error || g.error ? h('p', { class: 'error' }, d.error ?? g.error) : null,
    );
    const opts = ['', ...d.arms];
    if (filterArm.options.length !== opts.length) {
      filterArm.replaceChildren(...opts.map((a) => h('option', { value: a }, a || 'any arm')));
      filterArm.value = opts.includes(state.query.arm) ? state.query.arm : '';
    }
    const v = d.summaryView;
    sections.summary.hidden = !v || (v.arms.length === 0 && v.header.length === 0);
    if (!sections.summary.hidden) parts.summary.replaceChildren(summaryTable(d));
    sections.chart.hidden = d.chart.length === 0 || d.table.total === 0;
    if (!sections.chart.hidden) parts.chart.replaceChildren(...armChart(d.arms, d.chart));
    sections.distribution.hidden = !hasDistribution(d.distribution);
    if (!sections.distribution.hidden) parts.distribution.replaceChildren(...distribution(d.arms, d.distribution));
    sections.usage.hidden = !d.usage || d.usage.all.calls === 0;
    if (!sections.usage.hidden) parts.usage.replaceChildren(usageTable(d.usage));
    // The rows section stays while a filter hides every row: its controls are how to undo it.
    sections.rows.hidden = d.table.total === 0;
    drawRows(d);
  };
}

/** A long text cut to a line (the whole on hover), opened in place by a click. */
function textCell(key, text) {
  if (text === null || text === undefined) return h('td', { class: 'text muted', 'data-col': key }, '—');
  const td = h('td', { class: 'text', 'data-col': key, title: text.length > 2000 ? `${text.slice(0, 2000)}…` : text }, h('span', { class: 'clip' }, text));
  td.addEventListener('click', () => td.classList.toggle('open'));
  return td;
}

function summaryTable(d) {
  const v = d.summaryView;
  return h('div', {},
    v.header.length ? h('dl', { id: 'summary-header', class: 'inline' }, v.header.flatMap((l) => [h('dt', { title: l.path }, label(l.path)), figure('dd', l.path, l.value, { 'data-field': l.path })])) : null,
    v.arms.length ? h('table', { id: 'summary', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'figure'), v.arms.map((a) => h('th', { 'data-arm': a.arm }, a.arm)))),
      h('tbody', {}, v.fields.map((f) => h('tr', {},
        h('th', { class: 'field', title: f }, label(f)),
        v.arms.map((a) => {
          const leaf = a.leaves.find((l) => l.path === f);
          return leaf ? figure('td', f, leaf.value, { class: 'n', 'data-arm': a.arm, 'data-field': f }) : h('td', { class: 'n', 'data-arm': a.arm, 'data-field': f });
        }),
      )))) : null,
    h('p', { class: 'muted small' }, h('a', { id: 'summary-download', href: apiUrl(`/runs/${encodeURIComponent(d.digest.runId)}/summary`), download: 'summary.json' }, 'summary.json'), ' · figures rounded for reading: hover one for its exact value in summary.json (the download is unrounded); — is null.'),
  );
}

function usageTable(u) {
  const head = ['calls', 'success', 'failure', 'aborted', 'no outcome', 'without usage', 'input tokens', 'output tokens', 'total tokens'];
  const row = (name, l) => h('tr', { 'data-attribution': name },
    h('th', {}, name), [l.calls, l.outcomes.success, l.outcomes.failure, l.outcomes.aborted, l.outcomes.unknown, l.callsWithoutUsage].map((x) => h('td', { class: 'n' }, String(x))),
    [l.input, l.output, l.total].map((f) => h('td', { class: 'n' }, tokens(f.sum, f.unknownCalls))));
  return h('table', { id: 'usage', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, 'attribution'), head.map((c) => h('th', {}, c)))),
    h('tbody', {}, Object.entries(u.byAttribution).filter(([, l]) => l.calls > 0).map(([k, l]) => row(k, l)), row('failed', u.failed), row('all', u.all)));
}


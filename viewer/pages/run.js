// A run: per-arm summary (summary.json's figures, labelled and rounded, exact on hover), the chart, the rows table (sortable,
// filterable by case, arm and outcome) and usage by attribution. Filters survive live refreshes.
import { api, apiUrl } from '../api.js';
import { armChart } from '../chart.js';
import { figure, label, seconds } from '../format.js';
import { armClass, badge, duration, fill, h, link, path, section, tokens } from '../ui.js';

const OUTCOMES = ['pass', 'fail', 'error', 'done', 'running'];
const COLUMNS = [
  ['job_id', 'job'], ['case', 'case'], ['arm', 'arm'], ['repetition', 'rep'], ['outcome', 'outcome'], ['tokens', 'tokens'], ['seconds', 'seconds'],
];

export async function runPage(main, { runId }) {
  const state = { sort: 'job_id', dir: 1, data: null };
  const filterCase = h('input', { id: 'filter-case', type: 'search', placeholder: 'case contains…', oninput: () => drawRows() });
  const filterArm = h('select', { id: 'filter-arm', onchange: () => drawRows() });
  const filterOutcome = h('select', { id: 'filter-outcome', onchange: () => drawRows() }, h('option', { value: '' }, 'any outcome'), OUTCOMES.map((o) => h('option', { value: o }, o)));
  const parts = {
    head: h('div', { id: 'run-head' }),
    summary: h('div', { class: 'scroll' }),
    chart: h('div', { id: 'chart', class: 'chart' }),
    rows: h('div', { class: 'scroll' }),
    count: h('span', { id: 'rows-count', class: 'muted' }),
    usage: h('div', { class: 'scroll' }),
  };
  main.replaceChildren(
    parts.head,
    section('Summary per arm', 'summary-section', parts.summary),
    section('Arms compared', 'chart-section', parts.chart),
    section('Rows', 'rows-section', h('div', { class: 'filters' }, filterCase, filterArm, filterOutcome, parts.count), parts.rows),
    section('Usage by attribution', 'usage-section', parts.usage),
  );

  function drawRows() {
    const d = state.data;
    if (!d) return;
    const text = filterCase.value.trim().toLowerCase();
    const shown = d.rows
      .filter((r) => (!text || r.case.toLowerCase().includes(text)) && (!filterArm.value || r.arm === filterArm.value) && (!filterOutcome.value || r.outcome === filterOutcome.value))
      .sort((a, b) => state.dir * compare(a[state.sort], b[state.sort]) || compare(a.job_id, b.job_id));
    parts.count.textContent = `${shown.length} of ${d.rows.length} rows`;
    const th = (key, label) => h('th', {
      class: ['sortable', state.sort === key && (state.dir > 0 ? 'asc' : 'desc')], 'data-sort': key,
      onclick: () => { state.dir = state.sort === key ? -state.dir : 1; state.sort = key; drawRows(); },
    }, label);
    parts.rows.replaceChildren(h('table', { id: 'rows', class: 'grid' },
      h('thead', {}, h('tr', {}, COLUMNS.map(([k, l]) => th(k, l)))),
      h('tbody', {}, shown.map((r) => h('tr', { 'data-job': r.job_id ?? '', 'data-outcome': r.outcome, 'data-arm': r.arm, 'data-case': r.case },
        h('td', {}, r.job_id ? link(path('run', runId, 'job', r.job_id), r.job_id) : '—'),
        h('td', {}, r.case),
        h('td', {}, h('span', { class: ['swatch', armClass(d.arms, r.arm)] }), r.arm),
        h('td', { class: 'n' }, r.repetition ?? '—'),
        h('td', {}, badge(r.outcome)),
        h('td', { class: 'n', title: r.tokens_complete ? '' : 'some calls did not report usage' }, r.tokens === null ? 'unknown' : `${r.tokens}${r.tokens_complete ? '' : '+'}`),
        h('td', { class: 'n', title: r.seconds ?? '' }, seconds(r.seconds)),
      ))),
    ));
  }

  return async () => {
    const d = await api(`/runs/${encodeURIComponent(runId)}`);
    state.data = d;
    const g = d.digest;
    fill(parts.head,
      h('h1', {}, runId, ' ', h('span', { id: 'run-status' }, badge(g.status))),
      d.header ? h('p', { class: 'meta' }, `suite ${d.header.suite} · model ${d.header.model} · seed ${d.header.seed} · concurrency ${d.header.concurrency} · config ${d.header.config_hash.slice(0, 12)}`) : null,
      d.header?.note ? h('p', { class: 'note' }, d.header.note) : null,
      h('p', { class: 'progress' },
        'jobs done ', h('strong', { id: 'jobs-done' }, String(g.jobs.succeeded)), ` of ${g.jobs.planned}`,
        ' · running ', h('strong', { id: 'jobs-running' }, String(g.jobs.running)),
        ' · failed ', h('strong', { id: 'jobs-failed' }, String(g.jobs.failed)),
        ` · ${g.events} events · elapsed ${duration(g.elapsedSeconds)}`),
      d.arms.length >= 2 ? h('p', {}, link(`${path('run', runId, 'compare')}`, h('span', { id: 'compare-link' }, `Compare arms (${d.arms.join(' vs ')}) →`))) : null,
      d.error || g.error ? h('p', { class: 'error' }, d.error ?? g.error) : null,
    );
    const opts = ['', ...d.arms];
    if (filterArm.options.length !== opts.length) {
      const keep = filterArm.value;
      filterArm.replaceChildren(...opts.map((a) => h('option', { value: a }, a || 'any arm')));
      filterArm.value = opts.includes(keep) ? keep : '';
    }
    parts.summary.replaceChildren(summaryTable(d));
    parts.chart.replaceChildren(...(d.chart.length ? armChart(d.arms, d.chart) : [h('p', { class: 'muted' }, 'No jobs yet.')]));
    parts.usage.replaceChildren(d.usage ? usageTable(d.usage) : h('p', { class: 'muted' }, 'No calls yet.'));
    drawRows();
  };
}

function compare(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  return a < b ? -1 : 1;
}

function summaryTable(d) {
  const v = d.summaryView;
  if (!v) return h('p', { class: 'muted' }, 'Nothing to summarise yet.');
  return h('div', {},
    h('dl', { id: 'summary-header', class: 'inline' }, v.header.flatMap((l) => [h('dt', { title: l.path }, label(l.path)), figure('dd', l.path, l.value, { 'data-field': l.path })])),
    h('table', { id: 'summary', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, 'figure'), v.arms.map((a) => h('th', { 'data-arm': a.arm }, a.arm)))),
      h('tbody', {}, v.fields.map((f) => h('tr', {},
        h('th', { class: 'field', title: f }, label(f)),
        v.arms.map((a) => {
          const leaf = a.leaves.find((l) => l.path === f);
          return leaf ? figure('td', f, leaf.value, { class: 'n', 'data-arm': a.arm, 'data-field': f }) : h('td', { class: 'n', 'data-arm': a.arm, 'data-field': f });
        }),
      )))),
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

// A job: its events in log order (parent, worker turns, tool calls, provider calls with usage and
// latency, checks), the messages of each request on demand, and its artifact revisions with diffs;
// for a job whose grader recorded its workspace (the coding suite), the files changed and the diff.
// Above them, the job's input, output and expected value from its row, and links to the previous
// and next job in the order of the run page's table (its filters and sort come along in the hash).
import { api } from '../api.js';
import { badge, fill, h, link, num, path, section } from '../ui.js';

const usage = (u) => (u ? `tokens ${u.prompt ?? '?'} in / ${u.completion ?? '?'} out / ${u.total ?? '?'} total` : 'usage not reported');
const short = (text, n = 160) => (text.length > n ? `${text.slice(0, n)}…` : text);
const more = (label, text) => (text ? h('details', {}, h('summary', {}, label), h('pre', {}, text)) : null);

/** One line saying what the event is about, by type; unknown types show their scalar fields. */
function describe(e, runId) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'JobStarted': return [`case ${d.caseId} · arm ${d.arm} · repetition ${d.repetition} · seed ${d.seed}`];
    case 'TaskDelegated': return [`handoff ${d.mode}, ${d.words} words`, more('brief', d.brief)];
    case 'ProviderCallRequested': return [`${d.callId} · ${d.attribution} · ${d.model} · attempt ${d.attempt}${d.retryOf ? ` (retry of ${d.retryOf})` : ''} · tools: ${d.tools.join(', ') || 'none'}`, messages(runId, d.messages)];
    case 'ProviderCallSucceeded': return [
      `${d.callId} · ${num(d.latencyMs, 0)} ms · ${usage(d.usage)} · finish ${d.finishReason ?? '—'}`,
      d.toolCalls.length ? h('div', { class: 'calls' }, d.toolCalls.map((t) => h('code', {}, `${t.name}(${short(t.arguments, 120)})`))) : null,
      more('reply', d.content),
    ];
    case 'ProviderCallFailed': return [`${d.callId} · ${d.kind}${d.status ? ` (HTTP ${d.status})` : ''} · ${num(d.latencyMs, 0)} ms · ${d.retryable ? 'retryable' : 'final'} · ${d.message}`];
    case 'ToolCalled': return [h('code', {}, `${d.name}(${short(d.arguments, 120)})`), d.isError ? badge('error') : null, more('result', d.result)];
    case 'ArtifactRevised': return [h('a', { href: `#rev-${d.revision}`, class: 'revlink' }, `revision ${d.revision}`), ` · sha256 ${d.sha256.slice(0, 12)}`];
    case 'CheckEvaluated': return [badge(d.passed ? 'pass' : 'fail'), ` ${d.checkId} (${d.visibility}) · ${d.detail}`];
    case 'JobGraded': return [badge(d.passed ? 'pass' : 'fail'), ` ${d.checksPassed}/${d.checksTotal} checks${d.firstRevisionPassed === null ? '' : ` · first revision ${d.firstRevisionPassed ? 'passed' : 'failed'}`}`];
    case 'WorkerStopped': return [`${d.reason} after ${d.turns} turns`, more('answer', d.answer)];
    case 'AgentLaunched': return [`agent ${d.agent} · `, h('code', {}, short(d.command.join(' '), 120))];
    case 'AgentExited': return [
      `${d.reason} · ${d.signal ? `signal ${d.signal}` : `exit code ${d.code ?? '—'}`} · ${d.modelCalls} model calls · ${d.toolCalls} tool calls`,
      more('answer', d.answer),
    ];
    case 'WorkspaceCaptured': return [h('a', { href: '#workspace-section', class: 'revlink' }, `workspace: ${d.summary.files} files changed`), ` · +${d.summary.added} −${d.summary.removed}${d.skipped.length ? ` · ${d.skipped.length} not captured` : ''}`];
    case 'AgentDiverged': return [badge('diverged', 'error'), ` request ${d.index} (${d.kind}) differs at ${d.field} · ${d.detail}`];
    case 'JobSucceeded': return [d.passed === null ? 'ended (graded later)' : badge(d.passed ? 'pass' : 'fail')];
    case 'JobFailed': return [badge('error'), ` ${d.reason}: ${d.message}`];
    default: return [Object.entries(d).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => `${k} ${v}`).join(' · ')];
  }
}

/** A button that loads the request's messages (content-addressed blobs) when opened. */
function messages(runId, hashes) {
  const list = h('ol', { class: 'messages' });
  const details = h('details', { class: 'messages-toggle' }, h('summary', {}, `messages (${hashes.length})`), list);
  details.addEventListener('toggle', async () => {
    if (!details.open || list.childElementCount > 0) return;
    for (const hash of hashes) {
      const m = await api(`/runs/${encodeURIComponent(runId)}/blobs/${hash}`).catch((err) => ({ role: 'error', content: err.message }));
      const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? m, null, 2);
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map((t) => `→ ${t.function?.name}(${t.function?.arguments})`).join('\n') : '';
      list.append(h('li', { class: `msg role-${m.role}` }, h('span', { class: 'role' }, m.role ?? '?'), h('pre', {}, [text, calls].filter(Boolean).join('\n'))));
    }
  });
  return details;
}

function revisions(revs) {
  return revs.map((r) => h('div', { class: 'revision', id: `rev-${r.revision}`, 'data-revision': r.revision },
    h('h3', {}, `revision ${r.revision}`, h('span', { class: 'muted' }, ` sha256 ${r.sha256.slice(0, 12)}`)),
    r.diff ? h('div', {}, h('p', { class: 'muted small' }, `diff from revision ${r.revision - 1}`),
      h('pre', { class: 'diff' }, r.diff.map((l) => h('span', { class: l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'same' }, `${l.op} ${l.text}\n`)))) : null,
    more(r.diff ? 'full text' : 'text', r.content),
  ));
}

/** Previous and next job in the table's order, and where this one is in it. */
function around(runId, n, query) {
  const to = (jobId, text, id) => (jobId ? link(`${path('run', runId, 'job', jobId)}${query ? `?${query}` : ''}`, h('span', { id }, text)) : h('span', { class: 'muted', id }, text));
  const back = link(`${path('run', runId)}${query ? `?${query}` : ''}`, h('span', { id: 'job-table' }, query ? 'the filtered table' : 'the table'));
  const where = n.position === null ? `not among the ${n.matched} jobs of ` : `job ${n.position} of ${n.matched} in `;
  return h('p', { class: 'job-nav', id: 'job-nav' }, to(n.prev, '← previous job', 'job-prev'), ' · ', h('span', { class: 'muted', id: 'job-position' }, where), back, ' · ', to(n.next, 'next job →', 'job-next'));
}

/** The row's answer fields, the ones it has. */
function answer(row) {
  if (!row) return null;
  const fields = [['input', row.input], ['output', row.output], ['expected', row.expected], ['reason', row.reason]].filter(([, v]) => v !== null);
  if (fields.length === 0) return null;
  return section('Answer', 'answer-section', h('p', {}, badge(row.outcome)),
    h('dl', { class: 'answer' }, fields.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-field': k }, h('pre', {}, v))])));
}

/** The suite's row as published (its own field names), folded away: the table shows only its core. */
function rawRow(raw) {
  if (!raw) return null;
  return section('Row', 'row-section', h('details', { class: 'raw', id: 'row-raw' }, h('summary', {}, 'rows.jsonl line'), h('pre', {}, JSON.stringify(raw, null, 2))));
}

/** Asks for the agent's output when the job ran an agent; the server says whether it failed (agent null when not). */
async function agentOutputOf(runId, jobId, timeline) {
  if (!timeline.some((e) => e.type === 'AgentExited')) return null;
  return api(`/runs/${encodeURIComponent(runId)}/jobs/${encodeURIComponent(jobId)}/agent-output`).catch((err) => ({ error: err.message }));
}

/** A failed agent's ending and the last lines of its stderr and stdout, as the server cut and escaped them (put in as text). */
function agentOutput(view) {
  if (!view || (!view.error && !view.agent)) return null;
  if (view.error) return section('Agent output', 'agent-output-section', h('p', { class: 'error', id: 'agent-output-error' }, view.error));
  const a = view.agent;
  const stream = (name, t) => [
    h('dt', {}, name),
    h('dd', { 'data-stream': name },
      t.note ? h('p', { class: 'muted small', 'data-note': name }, t.note) : null,
      t.bytes === 0 ? h('p', { class: 'muted' }, '(empty)') : h('pre', { class: 'stream' }, t.text)),
  ];
  return section('Agent output', 'agent-output-section',
    h('p', { id: 'agent-ending' }, badge(a.reason, 'error'), ` the agent ${a.ending}`),
    h('dl', { class: 'answer' }, stream('stderr', a.stderr), stream('stdout', a.stdout)));
}

/** Asks for the recorded workspace when the job's grader recorded one. */
async function workspaceOf(runId, jobId, timeline) {
  if (!timeline.some((e) => e.type === 'WorkspaceCaptured')) return null;
  return api(`/runs/${encodeURIComponent(runId)}/jobs/${encodeURIComponent(jobId)}/workspace`).catch((err) => ({ error: err.message }));
}

/** The files the job changed and the head of its unified diff, as the server cut and escaped it (put in as text). */
function workspace(view) {
  if (!view || (!view.error && !view.workspace)) return null;
  if (view.error) return section('Workspace', 'workspace-section', h('p', { class: 'error', id: 'workspace-error' }, view.error));
  const w = view.workspace;
  const kind = (line) => (line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : 'same');
  return section('Workspace', 'workspace-section',
    h('p', { id: 'workspace-summary' }, w.summary),
    w.files.length ? h('ul', { id: 'workspace-files' }, w.files.map((f) => h('li', { 'data-path': f.path }, h('code', {}, f.path), ` ${f.change} · +${f.added} −${f.removed}`))) : null,
    w.diff.text ? h('pre', { class: 'diff', id: 'workspace-diff' }, w.diff.text.split('\n').map((l) => h('span', { class: kind(l) }, `${l}\n`))) : null,
    w.diff.cut ? h('p', { class: 'muted small', id: 'workspace-cut' }, `${w.diff.totalLines - w.diff.lines} more lines of the diff are not shown`) : null,
  );
}

export async function jobPage(main, { runId, jobId }) {
  const query = location.hash.split('?')[1] ?? '';
  return async () => {
    const [j, n] = await Promise.all([
      api(`/runs/${encodeURIComponent(runId)}/jobs/${encodeURIComponent(jobId)}`),
      api(`/runs/${encodeURIComponent(runId)}/jobs/${encodeURIComponent(jobId)}/around${query ? `?${query}` : ''}`),
    ]);
    let turn = null;
    const items = [];
    for (const e of j.timeline) {
      // A heading per worker turn, so a long loop reads as turns rather than one list.
      if (e.turn !== null && e.turn !== turn && e.role !== 'grader') items.push(h('li', { class: 'turn' }, `${e.role} turn ${e.turn}`));
      if (e.turn !== null) turn = e.turn;
      items.push(h('li', { class: ['event', `role-${e.role}`], 'data-type': e.type, 'data-seq': e.seq },
        h('span', { class: 'offset' }, `+${num(e.offset_ms / 1000, 3)} s`),
        h('span', { class: 'role' }, e.role),
        h('span', { class: 'type' }, e.type),
        h('span', { class: 'desc' }, describe(e, runId)),
        h('details', { class: 'raw' }, h('summary', {}, 'event'), h('pre', {}, JSON.stringify({ seq: e.seq, at: e.at, actor: e.actor, data: e.data }, null, 2))),
      ));
    }
    // Keep opened details (messages) across live refreshes: only redraw when the job changed.
    const sig = `${j.timeline.length}:${n.prev}:${n.next}:${n.row?.outcome}`;
    if (main.dataset.sig === `${jobId}:${sig}`) return;
    main.dataset.sig = `${jobId}:${sig}`;
    const [agent, work] = await Promise.all([agentOutputOf(runId, jobId, j.timeline), workspaceOf(runId, jobId, j.timeline)]);
    fill(main,
      h('h1', {}, jobId),
      h('p', { class: 'meta' }, `case ${j.caseId ?? '—'} · arm ${j.arm ?? '—'} · repetition ${j.repetition ?? '—'}`,
        j.claimedBy ? h('span', { id: 'claimed-by' }, ` · claimed by ${JSON.stringify(j.claimedBy)}`) : null),
      around(runId, n, query),
      answer(n.row),
      rawRow(n.raw),
      agentOutput(agent),
      workspace(work),
      section('Timeline', 'timeline-section', h('ol', { id: 'timeline', class: 'timeline' }, items)),
      j.revisions.length ? section('Artifact revisions', 'revisions-section', revisions(j.revisions)) : null,
    );
  };
}

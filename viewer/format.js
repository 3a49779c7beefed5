// How figures read: one table of labels for summary field names, and numbers rounded for the
// eye (rates as percentages, times with units) with the exact value kept in the title, so a
// hover shows what summary.json holds; downloads and the JSON API are never rounded.
import { exact, h } from './ui.js';

/** Labels of summary field names, by segment (two-segment keys first: `tokens.input`). */
export const LABELS = {
  'tokens.input': 'input tokens', 'tokens.output': 'output tokens', 'tokens.total': 'total tokens',
  'cache.read_tokens': 'cache read tokens', 'cache.write_tokens': 'cache write tokens',
  input_tokens: 'input tokens', output_tokens: 'output tokens', total_tokens: 'total tokens',
  unknown_calls: 'calls with unknown usage', known_calls: 'calls with known usage', calls_without_usage: 'calls without usage',
  unknown_repetitions: 'repetitions with unknown usage', unknown_usage: 'unknown usage', known_tokens: 'known tokens',
  pass_rate: 'pass rate', passed: 'passed', failed: 'failed', succeeded: 'succeeded', unfinished: 'unfinished',
  mean_seconds: 'mean time per job', median_seconds: 'median time per job', mean_total_tokens: 'mean total tokens per job',
  wall_seconds: 'wall time', latency_ms: 'latency', failed_calls: 'failed calls', failed_by_kind: 'failed calls by kind',
  usage_complete: 'usage complete', stop_reasons: 'stop reasons', failure_reasons: 'failure reasons', failure_types: 'failure types',
  n: 'count', run_id: 'run', p_value: 'p value', p95: 'p95',
};

const segments = (path) => (path ? path.split('.') : []);

/** A field's label: known segments from the table, others with spaces for underscores; a trailing `sum` is implied. */
export function label(path) {
  const parts = segments(path);
  if (parts.length > 1 && parts.at(-1) === 'sum') parts.pop();
  const out = [];
  for (let i = 0; i < parts.length; i += 1) {
    const two = `${parts[i]}.${parts[i + 1]}`;
    if (i + 1 < parts.length && LABELS[two]) {
      out.push(LABELS[two]);
      i += 1;
    } else out.push(LABELS[parts[i]] ?? parts[i].replace(/_/g, ' '));
  }
  return out.join(' · ') || 'value';
}

/** What kind of figure a path names: a rate (0..1), seconds, milliseconds or a plain number. */
export function kindOf(path) {
  const parts = segments(path);
  const last = parts.at(-1) ?? '';
  if (/(^|_)(rate|ratio|share|accuracy|fraction)$/.test(last)) return 'rate';
  if (parts.some((p) => /(^|_)ms$/.test(p))) return 'ms';
  if (parts.some((p) => /(^|_)seconds$/.test(p))) return 's';
  return 'number';
}

/** A plain number for reading: integers as they are, others to three significant digits. */
export function round(v) {
  if (Number.isInteger(v)) return String(v);
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}

/** A value rounded for reading, by the kind of its field. Non-numbers are shown exactly. */
export function readable(path, v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return exact(v);
  switch (kindOf(path)) {
    case 'rate': return percent(v);
    case 'ms': return `${round(v)} ms`;
    case 's': return seconds(v);
    default: return round(v);
  }
}

/** A share 0..1 as a percentage with one decimal where it has one ("66.7 %", "100 %"). */
export function percent(v) {
  if (v === null || v === undefined) return '—';
  return `${String(Number((v * 100).toFixed(1)))} %`;
}

/** Seconds with a unit: "0.236 s", "12.3 s", "2 min 5 s". */
export function seconds(v) {
  if (v === null || v === undefined) return '—';
  if (Math.abs(v) < 60) return `${round(v)} s`;
  return `${Math.floor(v / 60)} min ${Math.round(v % 60)} s`;
}

/** A figure as an element: the rounded text, the exact value on hover (title). */
export function figure(tag, path, v, attrs = {}) {
  return h(tag, { ...attrs, title: exact(v) }, readable(path, v));
}

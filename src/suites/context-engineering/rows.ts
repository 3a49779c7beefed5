import type { DataOf, StoredEvent } from '../../events/index.js';
import type { Projection } from '../../projections/projection.js';

/** A usage field over a set of calls: the sum of reported values beside how many calls reported it or not. */
export interface FieldSum {
  /** null when no call reported the field: unknown is not zero. */
  sum: number | null;
  known_calls: number;
  unknown_calls: number;
}

/** Usage of a job: every attempt counts, failed and injected ones included. */
export interface CeUsage {
  input_tokens: FieldSum;
  output_tokens: FieldSum;
  total_tokens: FieldSum;
}

/** One row per job: the scenario's findings, its calls and cost, and its wall time. */
export interface CeRow {
  job_id: string;
  cell: string;
  case: string;
  scenario: string | null;
  recovery: string | null;
  repetition: number;
  status: 'succeeded' | 'failed' | 'unfinished';
  success: boolean;
  /** Every way the job fell short, sorted; empty on success. */
  failure_types: string[];
  /** answered, provider_failed, or budget:<main_calls|model_calls|deadline> when a budget stopped the loop. */
  stop_reason: string | null;
  state_checks: Record<string, boolean>;
  evidence: { id: string; source: string; line: number; revision: number | null; fetched: boolean; cited: boolean; hit: boolean }[];
  evidence_hits: number;
  stale_misuses: number;
  duplicate_effects: number;
  side_effects: number;
  /** Harness injections by kind, counted apart from any provider outcome. */
  injections: Record<string, number>;
  calls: { main: number; query: number; child: number; unknown: number; failed: number; total: number };
  usage: CeUsage;
  wall_seconds: number | null;
}

type Reported = Partial<Record<'input' | 'output' | 'total', number>>;

interface Acc {
  row: CeRow;
  startMs: number;
  /** Usage each attempt reported, by callId; null = nothing reported (yet, or ever). */
  calls: Map<string, Reported | null>;
  scored: DataOf<'ScenarioScored'> | null;
}

const sumOf = (calls: Iterable<Reported | null>, f: keyof Reported): FieldSum => {
  let sum: number | null = null;
  let known = 0;
  let unknown = 0;
  for (const u of calls) {
    if (u && u[f] !== undefined) (sum = (sum ?? 0) + u[f]!), (known += 1);
    else unknown += 1;
  }
  return { sum, known_calls: known, unknown_calls: unknown };
};

function newRow(jobId: string, d: DataOf<'JobStarted'>, meta: Record<string, unknown> | undefined): CeRow {
  return {
    job_id: jobId, cell: d.arm, case: d.caseId, scenario: (meta?.scenario as string) ?? null, recovery: (meta?.recovery as string | null) ?? null,
    repetition: d.repetition, status: 'unfinished', success: false, failure_types: [], stop_reason: null, state_checks: {}, evidence: [],
    evidence_hits: 0, stale_misuses: 0, duplicate_effects: 0, side_effects: 0, injections: {},
    calls: { main: 0, query: 0, child: 0, unknown: 0, failed: 0, total: 0 }, usage: { input_tokens: sumOf([], 'input'), output_tokens: sumOf([], 'output'), total_tokens: sumOf([], 'total') },
    wall_seconds: null,
  };
}

function apply(acc: Acc, e: StoredEvent): void {
  const r = acc.row;
  switch (e.type) {
    case 'ProviderCallRequested':
      // A judge call (a model-graded check) is not the agent's: neither counted nor summed here.
      if (e.data.attribution === 'grading') break;
      r.calls[e.data.attribution] += 1;
      r.calls.total += 1;
      acc.calls.set(e.data.callId, null);
      break;
    case 'ProviderCallSucceeded': {
      if (!acc.calls.has(e.data.callId)) break;
      const u = e.data.usage;
      const reported: Reported = {};
      if (typeof u?.prompt === 'number') reported.input = u.prompt;
      if (typeof u?.completion === 'number') reported.output = u.completion;
      if (typeof u?.total === 'number') reported.total = u.total;
      acc.calls.set(e.data.callId, reported);
      break;
    }
    case 'ProviderCallFailed':
      if (!acc.calls.has(e.data.callId)) break;
      r.calls.failed += 1;
      break;
    case 'FaultInjected':
      r.injections[e.data.kind] = (r.injections[e.data.kind] ?? 0) + 1;
      break;
    case 'EnvironmentChanged':
      if (!e.data.terminal) r.side_effects += 1;
      break;
    case 'BudgetExhausted':
      r.stop_reason = `budget:${e.data.budget}`;
      break;
    case 'WorkerStopped':
      r.stop_reason ??= e.data.reason;
      break;
    case 'ScenarioScored':
      acc.scored = e.data;
      break;
    case 'JobSucceeded':
    case 'JobFailed':
      r.status = e.type === 'JobSucceeded' ? 'succeeded' : 'failed';
      r.wall_seconds = (Date.parse(e.at) - acc.startMs) / 1000;
      if (e.type === 'JobFailed') r.stop_reason ??= e.data.reason;
      break;
    default:
      break;
  }
}

function finish(acc: Acc): CeRow {
  const r = { ...acc.row, injections: Object.fromEntries(Object.entries(acc.row.injections).sort(([a], [b]) => (a < b ? -1 : 1))) };
  const s = acc.scored;
  r.usage = { input_tokens: sumOf(acc.calls.values(), 'input'), output_tokens: sumOf(acc.calls.values(), 'output'), total_tokens: sumOf(acc.calls.values(), 'total') };
  if (s) {
    r.success = s.success;
    r.state_checks = Object.fromEntries(s.stateChecks.map((c) => [c.checkId, c.passed]));
    r.evidence = s.evidence.map((x) => ({ id: x.evidenceId, source: x.source, line: x.line, revision: x.revision, fetched: x.fetched, cited: x.cited, hit: x.fetched && x.cited }));
    r.evidence_hits = r.evidence.filter((x) => x.hit).length;
    r.stale_misuses = s.staleMisuses.length;
    r.duplicate_effects = s.duplicateEffects.reduce((n, d) => n + d.times - 1, 0);
  }
  const types = new Set<string>();
  if (r.status === 'unfinished') types.add('unfinished');
  if (r.stop_reason?.startsWith('budget:') || r.stop_reason === 'provider_failed') types.add(r.stop_reason);
  if (s && !s.submitted) types.add('not_submitted');
  if (s?.stateChecks.some((c) => !c.passed)) types.add('state');
  if (r.evidence.some((x) => !x.hit)) types.add('evidence');
  if (r.stale_misuses > 0) types.add('stale_misuse');
  if (r.duplicate_effects > 0) types.add('duplicate_effect');
  r.failure_types = [...types].sort();
  return r;
}

/** The rows projection: one row per started job, sorted by cell, case and repetition. */
export const ceRows: Projection<{ meta: Map<string, Record<string, unknown>>; jobs: Map<string, Acc> }, CeRow[]> = {
  name: 'context-engineering rows',
  initialState: () => ({ meta: new Map(), jobs: new Map() }),
  canHandle: (e) => e.jobId !== undefined || e.type === 'RunStarted',
  evolve(state, e) {
    if (e.type === 'RunStarted') for (const j of e.data.jobs) state.meta.set(j.jobId, j.meta ?? {});
    else if (e.type === 'JobStarted') state.jobs.set(e.jobId!, { row: newRow(e.jobId!, e.data, state.meta.get(e.jobId!)), startMs: Date.parse(e.at), calls: new Map(), scored: null });
    else if (e.jobId !== undefined) {
      const acc = state.jobs.get(e.jobId);
      if (acc) apply(acc, e);
    }
    return state;
  },
  result: (state) => [...state.jobs.values()].map(finish).sort((a, b) => cmp(a.cell, b.cell) || cmp(a.case, b.case) || a.repetition - b.repetition),
};

/** Code-unit string order, the same on every platform. */
export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

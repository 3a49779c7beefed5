import { assertNever, reportRows } from 'evalog';
import type { BaseRow, DataOf, JobColumns, JobStart, RoutedEvent } from 'evalog';

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
export type CeRow = {
  job_id: string;
  cell: string;
  /** The external agent that ran the job; absent for the built-in loop (so its rows keep their shape). */
  agent?: string;
  case: string;
  scenario: string | null;
  recovery: string | null;
  repetition: number;
  status: 'succeeded' | 'failed' | 'unfinished';
  success: boolean;
  /** Every way the job fell short, sorted; empty on success. */
  failure_types: string[];
  /** answered, provider_failed, or budget:<main_calls|model_calls|deadline|tokens> when a budget stopped the loop; an external agent's exit reason for its jobs. */
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
};

type Reported = Partial<Record<'input' | 'output' | 'total', number>>;

/** The suite's columns of one job as they fold; identity, status, stop reason and wall time are the base row's. */
type Columns = Omit<CeRow, 'job_id' | 'cell' | 'agent' | 'case' | 'repetition' | 'status' | 'stop_reason' | 'wall_seconds'>;

interface Acc {
  row: Columns;
  /** Usage each attempt reported, by callId; null = nothing reported (yet, or ever). */
  calls: Map<string, Reported | null>;
  scored: DataOf<'ScenarioScored'> | null;
}

const sumOf = (calls: Iterable<Reported | null>, f: keyof Reported): FieldSum => {
  let sum: number | null = null;
  let known = 0;
  let unknown = 0;
  for (const u of calls) {
    if (u && u[f] !== undefined) {
      sum = (sum ?? 0) + u[f]!;
      known += 1;
    } else unknown += 1;
  }
  return { sum, known_calls: known, unknown_calls: unknown };
};

function start(job: JobStart): Acc {
  const meta = job.meta;
  const row: Columns = {
    scenario: (meta?.scenario as string) ?? null,
    recovery: (meta?.recovery as string | null) ?? null,
    success: false,
    failure_types: [],
    state_checks: {},
    evidence: [],
    evidence_hits: 0,
    stale_misuses: 0,
    duplicate_effects: 0,
    side_effects: 0,
    injections: {},
    calls: { main: 0, query: 0, child: 0, unknown: 0, failed: 0, total: 0 },
    usage: { input_tokens: sumOf([], 'input'), output_tokens: sumOf([], 'output'), total_tokens: sumOf([], 'total') },
  };
  return { row, calls: new Map(), scored: null };
}

function apply(acc: Acc, e: RoutedEvent<'columns'>): void {
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
    case 'ScenarioScored':
      acc.scored = e.data;
      break;
    case 'BudgetExhausted':
    case 'WorkerStopped':
    case 'AgentExited':
    case 'JobSucceeded':
    case 'JobFailed':
      break; // the stop reason, status and wall time are the base row's
    case 'TaskDelegated':
    case 'ToolCalled':
    case 'ArtifactRevised':
    case 'CheckEvaluated':
    case 'JobGraded':
    case 'JobComputed':
      break; // not in the scenario's row
    default:
      assertNever(e);
  }
}

function finish(base: BaseRow, acc: Acc): CeRow {
  const r: CeRow = {
    job_id: base.job_id,
    cell: base.arm,
    ...(base.agent === undefined ? {} : { agent: base.agent }),
    case: base.case_id,
    repetition: base.repetition,
    status: base.status,
    // A budget that ran out, else how the loop stopped, else why the job failed.
    stop_reason: base.stop_reason ?? base.failure?.reason ?? null,
    wall_seconds: base.seconds,
    ...acc.row,
    injections: Object.fromEntries(Object.entries(acc.row.injections).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
  const s = acc.scored;
  r.usage = {
    input_tokens: sumOf(acc.calls.values(), 'input'),
    output_tokens: sumOf(acc.calls.values(), 'output'),
    total_tokens: sumOf(acc.calls.values(), 'total'),
  };
  if (s) {
    r.success = s.success;
    r.state_checks = Object.fromEntries(s.stateChecks.map((c) => [c.checkId, c.passed]));
    r.evidence = s.evidence.map((x) => ({
      id: x.evidenceId,
      source: x.source,
      line: x.line,
      revision: x.revision,
      fetched: x.fetched,
      cited: x.cited,
      hit: x.fetched && x.cited,
    }));
    r.evidence_hits = r.evidence.filter((x) => x.hit).length;
    r.stale_misuses = s.staleMisuses.length;
    r.duplicate_effects = s.duplicateEffects.reduce((n, d) => n + d.times - 1, 0);
  }
  const types = new Set<string>();
  if (r.status === 'unfinished') types.add('unfinished');
  if (r.stop_reason?.startsWith('budget:') || r.stop_reason === 'provider_failed') types.add(r.stop_reason);
  // An external agent that did not answer (exited non-zero, was killed, hung, never called the model) fell short by that.
  if (base.agent !== undefined && r.stop_reason !== null && r.stop_reason !== 'answered') types.add(r.stop_reason);
  if (s && !s.submitted) types.add('not_submitted');
  if (s?.stateChecks.some((c) => !c.passed)) types.add('state');
  if (r.evidence.some((x) => !x.hit)) types.add('evidence');
  if (r.stale_misuses > 0) types.add('stale_misuse');
  if (r.duplicate_effects > 0) types.add('duplicate_effect');
  r.failure_types = [...types].sort();
  return r;
}

/** The suite's columns of a job's row. */
export const ceColumns: JobColumns<Acc, CeRow> = {
  start,
  evolve: (acc, e) => {
    apply(acc, e);
    return acc;
  },
  row: finish,
};

/** Rows in the suite's order: by cell, case and repetition. */
export const byCellCaseRepetition = (a: CeRow, b: CeRow): number => cmp(a.cell, b.cell) || cmp(a.case, b.case) || a.repetition - b.repetition;

/** The rows projection: one row per started job, sorted by cell, case and repetition. */
export const ceRows = reportRows({ columns: ceColumns, compare: byCellCaseRepetition });

/** Code-unit string order, the same on every platform. */
export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

import { assertNever } from '../core/never.js';
import type { DataOf } from '../events/index.js';
import type { BaseRow } from './base-row.js';
import type { JobColumns } from './columns.js';
import { reportRows } from './report.js';
import type { RoutedEvent } from './fold/routing.js';
import { own } from '../core/strings.js';
import { usageFields } from './usage/index.js';

/**
 * Token usage of a set of call attempts, as usage.json counts it: per field the sum of reported
 * values (null when there were attempts and none reported it: unknown is not zero; 0 when there
 * was no attempt), with the attempts whose usage is unknown beside it.
 */
export interface RowUsage {
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  /** Attempts that did not report all three counts: failed, cut off, or without usage; 0 = complete. */
  unknown_calls: number;
  complete: boolean;
}

/** The generic row of a job, for suites without a report of their own: the base row with the grade and the agent's counts. */
export type Row = {
  job_id: string;
  case_id: string;
  arm: string;
  /** The external agent that ran the job; only in rows of external-agent jobs. */
  agent?: string;
  repetition: number;
  seed: number;
  status: BaseRow['status'];
  failure: BaseRow['failure'];
  passed: boolean | null;
  checks: Record<string, boolean>;
  checks_passed: number;
  checks_total: number;
  stop_reason: BaseRow['stop_reason'];
  /** The worker's model turns; for an external agent, the model requests it made (AgentExited.modelCalls). */
  turns: number;
  tool_calls: number;
  revisions: number;
  /** Every request of the agent (a judge's apart). */
  calls: number;
  failed_calls: number;
  usage: { parent: RowUsage; worker: RowUsage; total: RowUsage };
  /** Wall-clock: from JobStarted to the job's terminal event, by the recorded clock. */
  seconds: number | null;
  started_at: string;
  /** The graded workspace's diff: files changed, lines added and removed; only in rows of jobs with a workspace. */
  diff?: BaseRow['diff'];
};

/** The generic columns of one job as they fold. */
interface Columns {
  passed: boolean | null;
  checks: Record<string, boolean>;
  checks_passed: number;
  checks_total: number;
  turns: number;
  tool_calls: number;
  revisions: number;
  calls: number;
  failed_calls: number;
  usage: Row['usage'];
  /**
   * The agent's attempts waiting for their outcome, by call id, and whose they are (main = the
   * parent's); null once the job has ended (a rebuild keeps every job's columns to the end, and an
   * empty map still holds its table).
   */
  pending: Map<string, 'parent' | 'worker'> | null;
  /** Parts with at least one attempt (bits of ATTEMPTED): a part without any used no tokens (0), one with attempts knows only what they reported. */
  attempted: number;
}

/** The bit of each usage part in `Columns.attempted`. */
const ATTEMPTED = { parent: 1, worker: 2, total: 4 } as const;

const emptyUsage = (): RowUsage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0, unknown_calls: 0, complete: true });

/** The generic columns: grade, checks, the worker's turns and the agent's calls with usage per parent and worker. */
export const genericColumns: JobColumns<Columns, Row> = {
  start: () => ({
    passed: null,
    checks: {},
    checks_passed: 0,
    checks_total: 0,
    turns: 0,
    tool_calls: 0,
    revisions: 0,
    calls: 0,
    failed_calls: 0,
    usage: { parent: emptyUsage(), worker: emptyUsage(), total: emptyUsage() },
    pending: new Map(),
    attempted: 0,
  }),
  evolve: (c, e) => {
    apply(c, e);
    return c;
  },
  row: (b, c) => ({
    job_id: b.job_id,
    case_id: b.case_id,
    arm: b.arm,
    // Only when there is one: the rows of evalog's own loop stay byte-identical to older runs'.
    ...(b.agent === undefined ? {} : { agent: b.agent }),
    repetition: b.repetition,
    seed: b.seed,
    status: b.status,
    failure: b.failure,
    passed: c.passed,
    checks: c.checks,
    checks_passed: c.checks_passed,
    checks_total: c.checks_total,
    stop_reason: b.stop_reason,
    turns: c.turns,
    tool_calls: c.tool_calls,
    revisions: c.revisions,
    calls: c.calls,
    failed_calls: c.failed_calls,
    usage: c.usage,
    seconds: b.seconds,
    started_at: b.started_at,
    ...(b.diff === undefined ? {} : { diff: b.diff }),
  }),
};

/** The generic rows as a projection of their own, sorted by job id. */
export const rowsProjection = reportRows({ columns: genericColumns });

function apply(c: Columns, e: RoutedEvent<'columns'>): void {
  switch (e.type) {
    case 'ProviderCallRequested': {
      // A judge's calls (a model-graded check) are not the agent's: not in the row's calls or usage.
      if (e.data.attribution === 'grading') break;
      c.calls += 1;
      // Unknown until its usage is reported: a failed or cut-off attempt stays unknown, as in usage.json.
      const part = e.data.attribution === 'main' ? 'parent' : 'worker';
      c.pending ??= new Map();
      if (!c.pending.has(e.data.callId)) {
        for (const p of [part, 'total'] as const) {
          if ((c.attempted & ATTEMPTED[p]) === 0) {
            c.attempted |= ATTEMPTED[p];
            Object.assign(c.usage[p], { input_tokens: null, output_tokens: null, total_tokens: null });
          }
          unknownCall(c.usage[p]);
        }
      }
      c.pending.set(e.data.callId, part);
      break;
    }
    case 'ProviderCallSucceeded': {
      const part = c.pending?.get(e.data.callId);
      if (part === undefined) break;
      c.pending!.delete(e.data.callId);
      addUsage(c.usage[part], e.data);
      addUsage(c.usage.total, e.data);
      break;
    }
    case 'ProviderCallFailed':
      if (!c.pending?.delete(e.data.callId)) break;
      c.failed_calls += 1;
      break;
    case 'ToolCalled':
      c.tool_calls += 1;
      break;
    case 'ArtifactRevised':
      c.revisions = e.data.revision;
      break;
    case 'WorkerStopped':
      c.turns = e.data.turns;
      break;
    case 'AgentExited':
      // The agent's own loop is opaque: each model request it made through the proxy is its turn.
      c.turns = e.data.modelCalls;
      break;
    case 'CheckEvaluated':
      c.checks[own(e.data.checkId)] = e.data.passed;
      break;
    case 'JobGraded':
      c.passed = e.data.passed;
      c.checks_passed = e.data.checksPassed;
      c.checks_total = e.data.checksTotal;
      break;
    case 'JobFailed':
      c.passed = false;
      c.pending = null;
      break;
    case 'JobSucceeded':
      c.pending = null; // an ended job has no calls left: only its row is kept
      break;
    case 'TaskDelegated':
    case 'BudgetExhausted':
    case 'EnvironmentChanged':
    case 'ScenarioScored':
    case 'FaultInjected':
    case 'JobComputed':
      break; // not in the generic row (the stop reason of a budget is the base row's)
    default:
      assertNever(e);
  }
}

function unknownCall(u: RowUsage): void {
  u.unknown_calls += 1;
  u.complete = false;
}

/** Adds a success's reported counts; only one that reported all three stops counting as unknown. */
function addUsage(u: RowUsage, d: DataOf<'ProviderCallSucceeded'>): void {
  const f = usageFields(d.usage) ?? {};
  if (f.inputTokens !== undefined) u.input_tokens = (u.input_tokens ?? 0) + f.inputTokens;
  if (f.outputTokens !== undefined) u.output_tokens = (u.output_tokens ?? 0) + f.outputTokens;
  if (f.totalTokens !== undefined) u.total_tokens = (u.total_tokens ?? 0) + f.totalTokens;
  if (f.totalTokens !== undefined && f.inputTokens !== undefined && f.outputTokens !== undefined) {
    u.unknown_calls -= 1;
    u.complete = u.unknown_calls === 0;
  }
}

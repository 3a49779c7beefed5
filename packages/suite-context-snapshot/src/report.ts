import type { ArmJob, BaseRow, CoreOf, DataOf, JobColumns, ReportHeader, RoutedEvent, RowFold, SideComparison, SuiteReport } from 'evalog';
import {
  ARM_MAP_SUMMARY_LAYOUT,
  assertNever,
  cmp,
  compareArms,
  defineReport,
  foldRows,
  isHarnessStopReason,
  median,
  pairedLine,
  reportRows,
  rowFold,
  sha256,
} from 'evalog';
import { protocolStatus } from './config.js';
import { GRAPH_STEP_CAP } from './graph-steps.js';
import { pyStrip } from './strip.js';

/** Token usage of a set of calls, as the protocol reports it; `complete` = every call reported all three counts. */
export interface CsUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  requests: number;
  complete: boolean;
}

/** One row per job, with the protocol's metrics. */
export type CsRow = {
  job_id: string;
  case: string;
  arm: string;
  repetition: number;
  artifact_correct: boolean;
  first_artifact_correct: boolean;
  fresh_public_check: boolean;
  /** null when the executor gave no result (the published runner's wait_for timed out). */
  executor_status: 'completed' | 'failed' | null;
  stop_reason: 'turn_capped' | 'timed_out' | null;
  error_type: string | null;
  clean_success: boolean;
  /** Snapshot arm: the dispatched prompt is the brief as written (both stripped, as Python strips); isolated arm: null. */
  brief_policy_adhered: boolean | null;
  /** The lead attached acceptance criteria to its task call. */
  acceptance_criteria_added: boolean;
  artifact_sha256: string | null;
  seconds: number | null;
  lead_seconds: number | null;
  usage: CsUsage;
  lead_usage: CsUsage;
  worker_usage: CsUsage;
};

/** The suite's columns of one job as they fold (its identity is the base row's). */
interface Acc {
  row: Omit<CsRow, 'job_id' | 'case' | 'arm' | 'repetition'>;
  startMs: number;
  startMono: number | undefined;
  lastRevision: number;
  checked: { revision: number | null; passed: boolean } | null;
  attribution: Map<string, string>;
  /** The budget that ran out, if one did: an external agent's stop is read through it, as the base row's is. */
  budget: DataOf<'BudgetExhausted'>['budget'] | null;
  arm: string;
  /** sha256 of the stripped brief, from the plan (absent in runs recorded before it was). */
  briefSha256: string | null;
}

const emptyUsage = (): CsUsage => ({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, requests: 0, complete: true });
/** From the job's start to `e`: by the monotonic readings when both have one (sub-ms, as upstream's perf_counter), else by `at`. */
const seconds = (acc: Acc, e: { at: string; mono?: number }) =>
  (acc.startMono !== undefined && e.mono !== undefined ? e.mono - acc.startMono : Date.parse(e.at) - acc.startMs) / 1000;

/** The protocol's columns; `seconds` is the protocol's (to the worker's stop), not the base row's (to the job's end). */
const columns: JobColumns<Acc, CsRow> = {
  start: (job) => ({
    row: {
      artifact_correct: false,
      first_artifact_correct: false,
      fresh_public_check: false,
      executor_status: 'failed',
      stop_reason: null,
      error_type: null,
      clean_success: false,
      brief_policy_adhered: null,
      acceptance_criteria_added: false,
      artifact_sha256: null,
      seconds: null,
      lead_seconds: null,
      usage: emptyUsage(),
      lead_usage: emptyUsage(),
      worker_usage: emptyUsage(),
    },
    startMs: job.startedMs,
    startMono: job.startedMono,
    lastRevision: 0,
    checked: null,
    attribution: new Map(),
    budget: null,
    arm: job.arm,
    briefSha256: typeof job.meta?.brief_sha256 === 'string' ? job.meta.brief_sha256 : null,
  }),
  evolve: (acc, e) => {
    apply(acc, e);
    return acc;
  },
  row: (base, acc) => finish(base, acc),
};

function apply(acc: Acc, e: RoutedEvent<'columns'>): void {
  const r = acc.row;
  switch (e.type) {
    case 'ProviderCallRequested':
      acc.attribution.set(e.data.callId, e.data.attribution);
      r.usage.requests += 1;
      (e.data.attribution === 'main' ? r.lead_usage : r.worker_usage).requests += 1;
      break;
    case 'ProviderCallSucceeded':
      addUsage(r.usage, e.data.usage);
      addUsage(acc.attribution.get(e.data.callId) === 'main' ? r.lead_usage : r.worker_usage, e.data.usage);
      if (acc.attribution.get(e.data.callId) === 'main') r.lead_seconds = seconds(acc, e);
      break;
    case 'ProviderCallFailed':
      // A failed call reported no usage: the sums are incomplete, never silently zero.
      r.usage.complete = false;
      (acc.attribution.get(e.data.callId) === 'main' ? r.lead_usage : r.worker_usage).complete = false;
      break;
    case 'TaskDelegated':
      // The published runner's meanings: only the snapshot arm has a brief policy (hand on the brief as written).
      r.brief_policy_adhered = acc.arm === 'snapshot' && acc.briefSha256 !== null ? sha256(pyStrip(e.data.brief)) === acc.briefSha256 : null;
      r.acceptance_criteria_added = (e.data.acceptanceCriteria?.length ?? 0) > 0;
      break;
    case 'ArtifactRevised':
      acc.lastRevision = e.data.revision;
      r.artifact_sha256 = e.data.sha256;
      break;
    case 'ToolCalled':
      if (e.data.name === 'run_public_checks') acc.checked = publicResult(e.data.result);
      break;
    case 'WorkerStopped':
      r.seconds = seconds(acc, e);
      {
        const stop = workerStop(e.data.reason, e.data.answer);
        r.executor_status = stop.executor_status;
        r.stop_reason = stop.stop_reason;
        if (stop.error_type !== null) r.error_type = stop.error_type;
      }
      break;
    case 'AgentExited': {
      // An external agent is the protocol's executor: its exit is the executor's stop.
      r.seconds = seconds(acc, e);
      r.executor_status = e.data.reason === 'answered' ? 'completed' : 'failed';
      const stop = agentStop(e.data.reason, acc.budget);
      r.stop_reason = stop.stop_reason;
      if (stop.error_type !== null) r.error_type = stop.error_type;
      break;
    }
    case 'BudgetExhausted':
      acc.budget = e.data.budget;
      break;
    case 'JobGraded':
      r.artifact_correct = e.data.passed;
      r.first_artifact_correct = e.data.firstRevisionPassed === true;
      break;
    case 'JobFailed':
      r.error_type = e.data.reason;
      r.seconds ??= seconds(acc, e);
      break;
    case 'JobSucceeded':
    case 'CheckEvaluated':
    case 'EnvironmentChanged':
    case 'ScenarioScored':
    case 'FaultInjected':
    case 'JobComputed':
      break; // not in the protocol's row
    default:
      assertNever(e);
  }
}

/**
 * The worker's stop in the published runner's terms. A step-capped worker (LangGraph's recursion
 * limit) keeps a normal status, completed when its last reply had text, with stop_reason
 * turn_capped; the deadline is the runner's asyncio.wait_for raising: no executor result at all
 * (status and stop reason null), error_type TimeoutError. evalog's own turn cap and the v1
 * between-turns time limit are read as they always were.
 */
function workerStop(reason: DataOf<'WorkerStopped'>['reason'], answer: string | null): Pick<CsRow, 'executor_status' | 'stop_reason' | 'error_type'> {
  // The suite's own stop rule (graph-steps.ts) is the one reason that is not the harness's.
  if (reason === GRAPH_STEP_CAP)
    return { executor_status: answer !== null && answer.trim() !== '' ? 'completed' : 'failed', stop_reason: 'turn_capped', error_type: null };
  // No other rule stops this suite's worker: a reason none of its code names is a log of another suite.
  if (!isHarnessStopReason(reason)) throw new Error(`context-snapshot: WorkerStopped reason ${JSON.stringify(reason)} is not one this suite's worker records`);
  switch (reason) {
    case 'answered':
      return { executor_status: 'completed', stop_reason: null, error_type: null };
    case 'turn_cap':
      return { executor_status: 'failed', stop_reason: 'turn_capped', error_type: null };
    case 'deadline':
      return { executor_status: null, stop_reason: null, error_type: 'TimeoutError' };
    case 'time_limit':
      return { executor_status: 'failed', stop_reason: 'timed_out', error_type: null };
    case 'provider_failed':
      return { executor_status: 'failed', stop_reason: null, error_type: 'provider_failed' };
    default:
      return assertNever(reason);
  }
}

/**
 * An external agent's stop in the protocol's terms, as the base row reads it (a budget that ran
 * out first, else the agent's reason): a call budget is the executor's turn cap, the deadline or
 * time limit its timeout. What the protocol has no stop reason for is the row's error type (a job
 * failure recorded later replaces it, as for the built-in executor).
 */
function agentStop(reason: DataOf<'AgentExited'>['reason'], budget: Acc['budget']): Pick<CsRow, 'stop_reason' | 'error_type'> {
  if (budget === 'main_calls' || budget === 'model_calls') return { stop_reason: 'turn_capped', error_type: null };
  if (budget === 'deadline' || reason === 'time_limit') return { stop_reason: 'timed_out', error_type: null };
  if (budget === 'tokens') return { stop_reason: null, error_type: 'budget:tokens' };
  return { stop_reason: null, error_type: reason === 'answered' ? null : reason };
}

function finish(base: BaseRow, acc: Acc): CsRow {
  const r: CsRow = { job_id: base.job_id, case: base.case_id, arm: base.arm, repetition: base.repetition, ...acc.row };
  r.fresh_public_check = acc.lastRevision > 0 && acc.checked?.revision === acc.lastRevision && acc.checked.passed;
  r.clean_success = r.artifact_correct && r.fresh_public_check && r.executor_status === 'completed' && r.stop_reason === null && r.error_type === null;
  return r;
}

function publicResult(text: string): Acc['checked'] {
  try {
    const v = JSON.parse(text) as { revision?: unknown; public_checks_passed?: unknown };
    return { revision: typeof v.revision === 'number' ? v.revision : null, passed: v.public_checks_passed === true };
  } catch {
    return null;
  }
}

function addUsage(u: CsUsage, reported: DataOf<'ProviderCallSucceeded'>['usage']): void {
  const ok = (n: number | null | undefined): n is number => typeof n === 'number';
  if (!reported || !ok(reported.prompt) || !ok(reported.completion) || !ok(reported.total)) u.complete = false;
  u.prompt_tokens += reported?.prompt ?? 0;
  u.completion_tokens += reported?.completion ?? 0;
  u.total_tokens += reported?.total ?? 0;
  u.cached_tokens += reported?.cached ?? 0;
}

/** Per-arm summary, exactly the protocol's fields. */
export interface CsArmSummary {
  n: number;
  artifact_correct: number;
  clean_success: number;
  observed_total_tokens: number;
  usage_complete: boolean;
  mean_total_tokens: number | null;
  mean_seconds: number | null;
  median_seconds: number | null;
  requests: number;
}

/** Row fields the summary reads; the published rows and evalog's rows both have them. */
export interface SummarizableRow {
  arm: string;
  artifact_correct: boolean;
  clean_success: boolean;
  seconds: number | null;
  usage: { total_tokens: number; requests: number; complete: boolean };
}

/** One arm's figures as they fold, in row order (sums in the order the rows come, as the protocol adds them). */
interface CsArmAcc {
  n: number;
  artifact_correct: number;
  clean_success: number;
  tokens: number;
  complete: boolean;
  secondsSum: number;
  seconds: number[];
  requests: number;
}

/** The per-arm summary as a fold over the rows in their order. */
export const csArmsFold: RowFold<SummarizableRow, Map<string, CsArmAcc>, Record<string, CsArmSummary>> = {
  init: () => new Map(),
  apply(arms, r) {
    let a = arms.get(r.arm);
    if (a === undefined) {
      a = { n: 0, artifact_correct: 0, clean_success: 0, tokens: 0, complete: true, secondsSum: 0, seconds: [], requests: 0 };
      arms.set(r.arm, a);
    }
    a.n += 1;
    if (r.artifact_correct) a.artifact_correct += 1;
    if (r.clean_success) a.clean_success += 1;
    a.tokens += r.usage.total_tokens;
    a.complete &&= r.usage.complete;
    if (typeof r.seconds === 'number') {
      a.secondsSum += r.seconds;
      a.seconds.push(r.seconds);
    }
    a.requests += r.usage.requests;
    return arms;
  },
  finish(arms) {
    const out: Record<string, CsArmSummary> = {};
    for (const arm of [...arms.keys()].sort(cmp)) {
      const a = arms.get(arm)!;
      out[arm] = {
        n: a.n,
        artifact_correct: a.artifact_correct,
        clean_success: a.clean_success,
        observed_total_tokens: a.tokens,
        usage_complete: a.complete,
        mean_total_tokens: a.complete && a.n > 0 ? a.tokens / a.n : null,
        mean_seconds: a.seconds.length > 0 ? a.secondsSum / a.seconds.length : null,
        median_seconds: median(a.seconds),
        requests: a.requests,
      };
    }
    return out;
  },
};

const csArms = rowFold(csArmsFold);

/** Summarises rows per arm, in row order (sums in the order the rows come, as the protocol does). */
export function summarizeRows(input: readonly SummarizableRow[]): Record<string, CsArmSummary> {
  return foldRows(csArms, input, { runId: '', suite: '', model: '', scripted: false });
}

/**
 * summary.json of the suite: the arms' summaries, with `scripted`, the protocol run (id: status)
 * and `paired` (evalog's own comparison of the arms, not a protocol field) beside them.
 */
export type CsSummary = { [arm: string]: CsArmSummary | boolean | string | SideComparison[] };

/**
 * A row as a job of the arms' comparison, in the protocol's own terms: its verdict is
 * `artifact_correct` (the hidden checks on the last revision), and every row is an outcome, as the
 * protocol counts its arms (a job that failed or timed out is not correct, not left out); tokens
 * are known only when every call reported them (`usage.complete`), seconds are the row's.
 */
export function csArmJob(r: CsRow): ArmJob {
  const u = r.usage;
  const tokens = u.complete ? { input: u.prompt_tokens, output: u.completion_tokens, total: u.total_tokens } : { input: null, output: null, total: null };
  return { arm: r.arm, case_id: r.case, repetition: r.repetition, passed: r.artifact_correct, tokens, seconds: r.seconds };
}

/** The protocol a recorded config ran, as `id: status` (e.g. "…: unpinned protocol"); null without a config. */
export function protocolLabel(config: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!config || typeof config.protocol !== 'string') return null;
  const files = Array.isArray(config.protocolFiles) ? (config.protocolFiles as { sha256: string; pinned: string }[]) : null;
  return `${config.protocol}: ${protocolStatus({ protocolFiles: files })}`;
}

function table(summary: CsSummary, header: ReportHeader): string {
  // The arms are the object members; `scripted` sits beside them.
  const s = Object.entries(summary).flatMap(([arm, a]) => (typeof a === 'object' && !Array.isArray(a) ? [[arm, a] as const] : []));
  const paired = Array.isArray(summary.paired) ? summary.paired : [];
  const head = ['arm', 'n', 'correct', 'clean', 'tokens', 'complete', 'mean tokens', 'mean s', 'median s', 'requests'];
  const body = s.map(([arm, a]) => [
    arm,
    String(a.n),
    String(a.artifact_correct),
    String(a.clean_success),
    String(a.observed_total_tokens),
    String(a.usage_complete),
    a.mean_total_tokens === null ? 'unknown' : a.mean_total_tokens.toFixed(1),
    a.mean_seconds?.toFixed(2) ?? '-',
    a.median_seconds?.toFixed(2) ?? '-',
    String(a.requests),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const label = header.scripted ? ' (scripted model: not a real model result)' : '';
  const protocol = typeof summary.protocol === 'string' ? [`protocol ${summary.protocol}`] : [];
  return `${[`suite ${header.suite}, model ${header.model}${label}`, ...protocol, line(head), ...body.map(line), ...paired.map(pairedLine)].join('\n')}\n`;
}

const byCaseArmRepetition = (a: CsRow, b: CsRow) => cmp(a.case, b.case) || cmp(a.arm, b.arm) || a.repetition - b.repetition;

/** The protocol's rows as a projection of their own, sorted by case, arm and repetition. */
export const csRows = reportRows({ columns, compare: byCaseArmRepetition });

/** A protocol row's core: its verdict is `artifact_correct`, its time the protocol's (to the worker's stop); who it is and its status are the job's. */
export const csCore: CoreOf<CsRow> = (r, job) => ({ ...job, passed: r.artifact_correct, seconds: r.seconds });

/** The suite's report: protocol rows, per-arm summary (with `scripted` beside the arms, so figures of the scripted model say so), table. */
export const contextSnapshotReport: SuiteReport = defineReport({
  columns,
  compare: byCaseArmRepetition,
  armJob: csArmJob,
  core: csCore,
  // A map of arm to figures beside `scripted` and `protocol`.
  summaryLayout: ARM_MAP_SUMMARY_LAYOUT,
  // `paired` is evalog's, beside the protocol's fields: `evalog summarize` (summarizeRows alone) still gives the published summary exactly.
  summary: rowFold<CsRow, { arms: Map<string, CsArmAcc>; jobs: ArmJob[] }, CsSummary>({
    init: (header) => ({ arms: csArmsFold.init(header), jobs: [] }),
    apply(acc, r) {
      csArmsFold.apply(acc.arms, r);
      acc.jobs.push(csArmJob(r));
      return acc;
    },
    finish(acc, header) {
      const protocol = protocolLabel(header.config);
      return {
        scripted: header.scripted,
        ...(protocol === null ? {} : { protocol }),
        ...csArmsFold.finish(acc.arms, header),
        paired: compareArms(header.runId, acc.jobs),
      };
    },
  }),
  table,
});

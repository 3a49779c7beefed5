import type { DataOf, StoredEvent } from '../events/index.js';
import type { Projection } from './projection.js';
import { own } from './strings.js';
import { cmp, usageFields } from './usage/index.js';

/** Token usage of a set of calls; sums of known values, with the number of calls that did not report. */
export interface RowUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Successful calls that did not report total_tokens; 0 means the sums are complete. */
  unknown_calls: number;
  complete: boolean;
}

/** One row per job: what happened and how it was graded. */
export interface Row {
  job_id: string;
  case_id: string;
  arm: string;
  repetition: number;
  seed: number;
  status: 'succeeded' | 'failed' | 'unfinished';
  failure: { reason: DataOf<'JobFailed'>['reason']; message: string } | null;
  passed: boolean | null;
  checks: Record<string, boolean>;
  checks_passed: number;
  checks_total: number;
  stop_reason: DataOf<'WorkerStopped'>['reason'] | null;
  turns: number;
  tool_calls: number;
  revisions: number;
  calls: number;
  failed_calls: number;
  usage: { parent: RowUsage; worker: RowUsage; total: RowUsage };
  /** Wall-clock: from JobStarted to the job's terminal event, by the recorded clock. */
  seconds: number | null;
  started_at: string;
}

interface JobAcc {
  row: Row;
  startedMs: number;
  /** Call ids of the job's parent (main) calls, until the job ends; their usage is the parent's. */
  mainCalls: Set<string> | null;
  /** Call ids of the job's judge calls (attribution `grading`): not the agent's, so not in the row's calls or usage. */
  judgeCalls?: Set<string>;
}

const emptyUsage = (): RowUsage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0, unknown_calls: 0, complete: true });

/** The rows projection: one row per started job, sorted by job id. */
export const rowsProjection: Projection<Map<string, JobAcc>, Row[]> = {
  name: 'rows',
  initialState: () => new Map(),
  canHandle: (e) => e.jobId !== undefined,
  evolve(jobs, e: StoredEvent) {
    if (e.type === 'JobStarted') {
      jobs.set(e.jobId!, { row: newRow(e.jobId!, e.data, e.at), startedMs: Date.parse(e.at), mainCalls: null });
      return jobs;
    }
    const acc = jobs.get(e.jobId!);
    if (acc) apply(acc, e);
    return jobs;
  },
  result: (jobs) => [...jobs.values()].map((a) => a.row).sort((a, b) => cmp(a.job_id, b.job_id)),
};

function newRow(jobId: string, d: DataOf<'JobStarted'>, at: string): Row {
  return {
    job_id: own(jobId), case_id: own(d.caseId), arm: own(d.arm), repetition: d.repetition, seed: d.seed, status: 'unfinished',
    failure: null, passed: null, checks: {}, checks_passed: 0, checks_total: 0, stop_reason: null, turns: 0,
    tool_calls: 0, revisions: 0, calls: 0, failed_calls: 0,
    usage: { parent: emptyUsage(), worker: emptyUsage(), total: emptyUsage() }, seconds: null, started_at: own(at),
  };
}

function apply(acc: JobAcc, e: StoredEvent): void {
  const row = acc.row;
  switch (e.type) {
    case 'ProviderCallRequested':
      if (e.data.attribution === 'grading') {
        (acc.judgeCalls ??= new Set()).add(e.data.callId);
        break;
      }
      row.calls += 1;
      if (e.data.attribution === 'main') (acc.mainCalls ??= new Set()).add(e.data.callId);
      else acc.mainCalls?.delete(e.data.callId);
      break;
    case 'ProviderCallSucceeded': {
      if (acc.judgeCalls?.has(e.data.callId)) break;
      const part = acc.mainCalls?.has(e.data.callId) ? row.usage.parent : row.usage.worker;
      addUsage(part, e.data);
      addUsage(row.usage.total, e.data);
      break;
    }
    case 'ProviderCallFailed':
      if (acc.judgeCalls?.has(e.data.callId)) break;
      row.failed_calls += 1;
      break;
    case 'ToolCalled':
      row.tool_calls += 1;
      break;
    case 'ArtifactRevised':
      row.revisions = e.data.revision;
      break;
    case 'WorkerStopped':
      row.stop_reason = own(e.data.reason);
      row.turns = e.data.turns;
      break;
    case 'CheckEvaluated':
      row.checks[own(e.data.checkId)] = e.data.passed;
      break;
    case 'JobGraded':
      row.passed = e.data.passed;
      row.checks_passed = e.data.checksPassed;
      row.checks_total = e.data.checksTotal;
      break;
    case 'JobSucceeded':
      row.status = 'succeeded';
      row.seconds = (Date.parse(e.at) - acc.startedMs) / 1000;
      acc.mainCalls = null; // an ended job has no calls left: only its row is kept
      break;
    case 'JobFailed':
      row.status = 'failed';
      row.failure = { reason: own(e.data.reason), message: own(e.data.message) };
      row.passed = false;
      row.seconds = (Date.parse(e.at) - acc.startedMs) / 1000;
      acc.mainCalls = null;
      break;
    default:
      break;
  }
}

function addUsage(u: RowUsage, d: DataOf<'ProviderCallSucceeded'>): void {
  const f = usageFields(d.usage) ?? {};
  u.input_tokens += f.inputTokens ?? 0;
  u.output_tokens += f.outputTokens ?? 0;
  u.total_tokens += f.totalTokens ?? 0;
  // Sums above cover reported values only; the unknown count says how much is missing.
  if (f.totalTokens === undefined || f.inputTokens === undefined || f.outputTokens === undefined) {
    u.unknown_calls += 1;
    u.complete = false;
  }
}

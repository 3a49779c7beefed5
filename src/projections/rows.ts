import type { DataOf, StoredEvent } from '../events/index.js';
import type { Projection } from './projection.js';
import { own } from './strings.js';
import { cmp, usageFields } from './usage/index.js';

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
  /** The agent's attempts waiting for their outcome, by call id, and whose they are (main = the parent's). */
  pending: Map<string, 'parent' | 'worker'>;
  /** Parts with at least one attempt: a part without any used no tokens (0), one with attempts knows only what they reported. */
  attempted: Set<'parent' | 'worker' | 'total'>;
}

const emptyUsage = (): RowUsage => ({ input_tokens: 0, output_tokens: 0, total_tokens: 0, unknown_calls: 0, complete: true });

/** The rows projection: one row per started job, sorted by job id. */
export const rowsProjection: Projection<Map<string, JobAcc>, Row[]> = {
  name: 'rows',
  initialState: () => new Map(),
  canHandle: (e) => e.jobId !== undefined,
  evolve(jobs, e: StoredEvent) {
    if (e.type === 'JobStarted') {
      jobs.set(e.jobId!, { row: newRow(e.jobId!, e.data, e.at), startedMs: Date.parse(e.at), pending: new Map(), attempted: new Set() });
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
    case 'ProviderCallRequested': {
      // A judge's calls (a model-graded check) are not the agent's: not in the row's calls or usage.
      const attribution: string = e.data.attribution;
      if (attribution === 'grading') break;
      row.calls += 1;
      // Unknown until its usage is reported: a failed or cut-off attempt stays unknown, as in usage.json.
      const part = attribution === 'main' ? 'parent' : 'worker';
      if (!acc.pending.has(e.data.callId)) {
        for (const p of [part, 'total'] as const) {
          if (!acc.attempted.has(p)) {
            acc.attempted.add(p);
            Object.assign(row.usage[p], { input_tokens: null, output_tokens: null, total_tokens: null });
          }
          unknownCall(row.usage[p]);
        }
      }
      acc.pending.set(e.data.callId, part);
      break;
    }
    case 'ProviderCallSucceeded': {
      const part = acc.pending.get(e.data.callId);
      if (part === undefined) break;
      acc.pending.delete(e.data.callId);
      addUsage(row.usage[part], e.data);
      addUsage(row.usage.total, e.data);
      break;
    }
    case 'ProviderCallFailed':
      if (!acc.pending.delete(e.data.callId)) break;
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
      acc.pending.clear(); // an ended job has no calls left: only its row is kept
      break;
    case 'JobFailed':
      row.status = 'failed';
      row.failure = { reason: own(e.data.reason), message: own(e.data.message) };
      row.passed = false;
      row.seconds = (Date.parse(e.at) - acc.startedMs) / 1000;
      acc.pending.clear();
      break;
    default:
      break;
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

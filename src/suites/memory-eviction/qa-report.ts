import type { StoredEvent } from '../../events/index.js';
import type { Projection } from '../../projections/projection.js';
import { cmp } from '../../projections/usage/index.js';
import type { ReportHeader, SuiteReport } from '../../harness/suite/types.js';
import type { QaTaskMeta } from './qa-plan.js';

/** One answered (or not yet answered) QA task: what qa.rows.jsonl holds before grading. */
export interface QaAnswerRow extends QaTaskMeta {
  schema_version: 1;
  status: 'answered' | 'failed' | 'unfinished';
  prediction: string | null;
  attempts: number;
  response_model: string | null;
  /** Integer-valued usage the provider reported, or null. */
  usage: Record<string, number> | null;
}

type State = { planned: Map<string, QaTaskMeta>; rows: Map<string, QaAnswerRow> };

const rows: Projection<State, QaAnswerRow[]> = {
  name: 'memory-eviction qa rows',
  initialState: () => ({ planned: new Map(), rows: new Map() }),
  canHandle: (e) => e.type === 'RunStarted' || e.jobId !== undefined,
  evolve(s, e: StoredEvent) {
    if (e.type === 'RunStarted') {
      for (const j of e.data.jobs) if (j.meta) s.planned.set(j.jobId, j.meta as unknown as QaTaskMeta);
      return s;
    }
    const jobId = e.jobId!;
    if (e.type === 'JobStarted') {
      const meta = s.planned.get(jobId);
      if (meta) s.rows.set(jobId, { schema_version: 1, ...meta, status: 'unfinished', prediction: null, attempts: 0, response_model: null, usage: null });
      return s;
    }
    const row = s.rows.get(jobId);
    if (!row) return s;
    if (e.type === 'ProviderCallRequested') row.attempts += 1;
    else if (e.type === 'ProviderCallSucceeded') {
      row.prediction = e.data.content ?? '';
      row.response_model = e.data.responseModel ?? null;
      const u = e.data.usage;
      row.usage = u ? Object.fromEntries(Object.entries({ prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.total }).filter(([, v]) => typeof v === 'number')) as Record<string, number> : null;
    } else if (e.type === 'JobSucceeded') row.status = 'answered';
    else if (e.type === 'JobFailed') row.status = 'failed';
    return s;
  },
  result: (s) => [...s.rows.values()].sort((a, b) => cmp(a.row_id, b.row_id)),
};

/** Per policy: tasks, answered, failed, unfinished. */
export function summarizeAnswers(list: readonly QaAnswerRow[]): Record<string, { tasks: number; answered: number; failed: number; unfinished: number }> {
  const out: Record<string, { tasks: number; answered: number; failed: number; unfinished: number }> = {};
  for (const r of list) {
    const p = (out[r.policy] ??= { tasks: 0, answered: 0, failed: 0, unfinished: 0 });
    p.tasks += 1;
    p[r.status] += 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => cmp(a, b)));
}

function table(summary: unknown, header: ReportHeader): string {
  const s = Object.fromEntries(Object.entries(summary as Record<string, unknown>).filter(([, v]) => typeof v === 'object' && v !== null)) as ReturnType<typeof summarizeAnswers>;
  const label = header.scripted ? ' (scripted model: not a real model result)' : '';
  const lines = Object.entries(s).map(([p, x]) => `${p.padEnd(12)} ${String(x.tasks).padStart(5)} ${String(x.answered).padStart(8)} ${String(x.failed).padStart(6)} ${String(x.unfinished).padStart(10)}`);
  return [`suite ${header.suite}, model ${header.model}${label}; grade with: evalog memory-eviction grade-qa`, `${'policy'.padEnd(12)} ${'tasks'.padStart(5)} ${'answered'.padStart(8)} ${'failed'.padStart(6)} ${'unfinished'.padStart(10)}`, ...lines].join('\n') + '\n';
}

/** The QA run's report: answer rows (ungraded), answered counts per policy. */
export const qaReport: SuiteReport = {
  rows: rows as unknown as SuiteReport['rows'],
  // `scripted` beside the policies, so a scripted run's counts say so.
  summarize: (r, header) => ({ scripted: header.scripted, ...summarizeAnswers(r as unknown as QaAnswerRow[]) }),
  table,
};

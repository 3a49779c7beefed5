import { assertNever } from '../../core/never.js';
import {
  defineReport,
  reportRows,
  type BaseRow,
  type JobColumns,
  type JobStart,
  type ReportHeader,
  type RoutedEvent,
  type SuiteReport,
} from '../../projections/index.js';
import { cmp } from '../../projections/usage/index.js';
import type { QaTaskMeta } from './qa-plan.js';

/** One answered (or not yet answered) QA task: what qa.rows.jsonl holds before grading. */
export type QaAnswerRow = QaTaskMeta & {
  schema_version: 1;
  status: 'answered' | 'failed' | 'unfinished';
  prediction: string | null;
  attempts: number;
  response_model: string | null;
  /** Integer-valued usage the provider reported, or null. */
  usage: Record<string, number> | null;
};

/** The answer of one task as it folds; null for a job the plan recorded no task facts for (it has no row). */
type Answer = { meta: QaTaskMeta; prediction: string | null; attempts: number; response_model: string | null; usage: Record<string, number> | null } | null;

/** The plan's facts of a QA job, as this suite's `jobMeta` records them (`taskMeta`). */
function isTaskMeta(meta: Record<string, unknown> | undefined): meta is QaTaskMeta {
  return meta !== undefined && typeof meta.row_id === 'string' && typeof meta.policy === 'string';
}

const columns: JobColumns<Answer, QaAnswerRow> = {
  start: (job: JobStart): Answer => (isTaskMeta(job.meta) ? { meta: job.meta, prediction: null, attempts: 0, response_model: null, usage: null } : null),
  evolve(a, e: RoutedEvent<'columns'>) {
    if (a === null) return a;
    switch (e.type) {
      case 'ProviderCallRequested':
        a.attempts += 1;
        break;
      case 'ProviderCallSucceeded': {
        a.prediction = e.data.content ?? '';
        a.response_model = e.data.responseModel ?? null;
        const u = e.data.usage;
        a.usage = u ? integers({ prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.total }) : null;
        break;
      }
      case 'AgentExited':
        // An external agent's answer is what it handed back, not the text of its last model call.
        a.prediction = e.data.answer;
        break;
      case 'ProviderCallFailed':
      case 'JobSucceeded':
      case 'JobFailed':
      case 'TaskDelegated':
      case 'WorkerStopped':
      case 'BudgetExhausted':
      case 'ToolCalled':
      case 'EnvironmentChanged':
      case 'ArtifactRevised':
      case 'CheckEvaluated':
      case 'JobGraded':
      case 'ScenarioScored':
      case 'FaultInjected':
        break; // not in an answer row (its status is the base row's)
      default:
        assertNever(e);
    }
    return a;
  },
  row: (base: BaseRow, a) =>
    a === null
      ? null
      : {
          schema_version: 1,
          ...a.meta,
          status: base.status === 'succeeded' ? 'answered' : base.status,
          prediction: a.prediction,
          attempts: a.attempts,
          response_model: a.response_model,
          usage: a.usage,
        },
};

/** The reported counts that are numbers (a count the provider left out is absent, not 0). */
function integers(u: Record<string, number | null | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(u)) if (typeof v === 'number') out[k] = v;
  return out;
}

/** Per policy: tasks, answered, failed, unfinished. */
export function summarizeAnswers(list: readonly QaAnswerRow[]): Record<string, { tasks: number; answered: number; failed: number; unfinished: number }> {
  const out: Record<string, { tasks: number; answered: number; failed: number; unfinished: number }> = {};
  for (const r of list) {
    let p = out[r.policy];
    if (p === undefined) {
      p = { tasks: 0, answered: 0, failed: 0, unfinished: 0 };
      out[r.policy] = p;
    }
    p.tasks += 1;
    p[r.status] += 1;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => cmp(a, b)));
}

/** summary.json of a QA run: counts per policy, with `scripted` beside them. */
export type QaSummary = { [policy: string]: ReturnType<typeof summarizeAnswers>[string] | boolean };

function table(summary: QaSummary, header: ReportHeader): string {
  const s = Object.entries(summary).flatMap(([p, x]) => (typeof x === 'object' ? [[p, x] as const] : []));
  const label = header.scripted ? ' (scripted model: not a real model result)' : '';
  const lines = s.map(
    ([p, x]) =>
      `${p.padEnd(12)} ${String(x.tasks).padStart(5)} ${String(x.answered).padStart(8)} ${String(x.failed).padStart(6)} ${String(x.unfinished).padStart(10)}`,
  );
  return `${[`suite ${header.suite}, model ${header.model}${label}; grade with: evalog memory-eviction grade-qa`, `${'policy'.padEnd(12)} ${'tasks'.padStart(5)} ${'answered'.padStart(8)} ${'failed'.padStart(6)} ${'unfinished'.padStart(10)}`, ...lines].join('\n')}\n`;
}

const compare = (a: QaAnswerRow, b: QaAnswerRow) => cmp(a.row_id, b.row_id);

/** The QA run's answer rows (ungraded), typed, as a projection of their own: what grade-qa grades. */
export const qaAnswerRows = reportRows({ columns, compare });

/** The QA run's report: answer rows (ungraded) by row id, answered counts per policy. */
export const qaReport: SuiteReport = defineReport({
  columns,
  compare,
  // `scripted` beside the policies, so a scripted run's counts say so.
  summarize: (r, header): QaSummary => ({ scripted: header.scripted, ...summarizeAnswers(r) }),
  table,
});

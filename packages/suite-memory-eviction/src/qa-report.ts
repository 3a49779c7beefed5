import type { BaseRow, CoreOf, JobColumns, JobStart, ReportHeader, ReportOutput, RoutedEvent, RowFold, StreamSummary, SuiteReport, Usage } from 'evalog';
import { ARM_MAP_SUMMARY_LAYOUT, assertNever, cmp, defineReport, foldRows, reportRows, rowFold } from 'evalog';
import type { QaTaskMeta } from './qa-plan.js';
import { QA_RUN_FILE, type QaRunMarker, qaRunMarker } from './qa-run-marker.js';

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
        // A reply without a string content is no prediction (run-qa fails such an attempt; an older
        // log may hold one as a success): the row is not answered, rather than answered "".
        a.prediction = e.data.content;
        a.response_model = e.data.responseModel ?? null;
        a.usage = rowUsage(e.data.reportedUsage, e.data.usage);
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
      case 'JobComputed':
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

/**
 * A row's usage as upstream's runner keeps it: every top-level integer field the provider reported
 * (prompt_cache_hit_tokens and the like included; nested objects such as *_details are left in the
 * log's `reportedUsage`, not in the row). Logs from before `reportedUsage` give the three counts.
 */
export function rowUsage(reported: Record<string, unknown> | undefined, counts: Usage | null): Record<string, number> | null {
  if (reported) {
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(reported)) if (typeof v === 'number' && Number.isInteger(v)) out[k] = v;
    return out;
  }
  if (!counts) return null;
  const out: Record<string, number> = {};
  const known = { prompt_tokens: counts.prompt, completion_tokens: counts.completion, total_tokens: counts.total };
  for (const [k, v] of Object.entries(known)) if (typeof v === 'number') out[k] = v;
  return out;
}

type PolicyCounts = { tasks: number; answered: number; failed: number; unfinished: number };

/** Per policy: tasks, answered, failed, unfinished, as a fold over the answer rows. */
const answersFold: RowFold<QaAnswerRow, Record<string, PolicyCounts>, Record<string, PolicyCounts>> = {
  init: () => ({}),
  apply(out, r) {
    let p = out[r.policy];
    if (p === undefined) {
      p = { tasks: 0, answered: 0, failed: 0, unfinished: 0 };
      out[r.policy] = p;
    }
    p.tasks += 1;
    p[r.status] += 1;
    return out;
  },
  finish: (out) => Object.fromEntries(Object.entries(out).sort(([a], [b]) => cmp(a, b))),
};

const answersSummary = rowFold(answersFold);

/** Per policy: tasks, answered, failed, unfinished. */
export function summarizeAnswers(list: readonly QaAnswerRow[]): Record<string, PolicyCounts> {
  return foldRows(answersSummary, list, { runId: '', suite: '', model: '', scripted: false });
}

/** summary.json of a QA run: counts per policy, with `scripted` (and `protocol_status`) beside them. */
export type QaSummary = { [policy: string]: ReturnType<typeof summarizeAnswers>[string] | boolean | string };

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

/** An answer row's core: the job's facts, ungraded (grade-qa grades the answers apart, into files of its own). */
export const qaCore: CoreOf<QaAnswerRow> = (_row, job) => ({ ...job, passed: null });

const answersReport: SuiteReport = defineReport({
  columns,
  compare,
  core: qaCore,
  // `scripted` beside the policies, so a scripted run's counts say so.
  summary: rowFold<QaAnswerRow, Record<string, PolicyCounts>, QaSummary>({
    init: answersFold.init,
    apply: answersFold.apply,
    finish: (acc, header) => ({ scripted: header.scripted, ...answersFold.finish(acc, header) }),
  }),
  table,
});

/** The protocol status a run recorded (its config's `protocol.status`); null for a run recorded before it was kept. */
function recordedStatus(config: Record<string, unknown>): string | null {
  const status = (config.protocol as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? status : null;
}

/**
 * The QA run's report: answer rows (ungraded) by row id, answered counts per policy; its summary
 * and table also say what the protocol was (`protocol_status`: pinned, unpinned, evalog's offline
 * variant), read from the run's RunStarted.
 */
export const qaReport: SuiteReport = {
  // Counts by policy (the arm), beside `scripted` and `protocol_status`.
  summaryLayout: ARM_MAP_SUMMARY_LAYOUT,
  start() {
    const run = answersReport.start();
    let status: string | null = null;
    let marker: QaRunMarker | null = null;
    return {
      evolve(e) {
        if (e.type === 'RunStarted') {
          status = recordedStatus(e.data.config);
          marker = qaRunMarker(e);
        }
        run.evolve(e);
      },
      finish(calls, header, answers) {
        const out = run.finish(calls, header, answers);
        return { ...out, ...withRunFacts(out, status, marker) };
      },
      // The rows as the answers report takes them; its summary with the run's facts added as finish adds them.
      ...(run.stream
        ? {
            stream: {
              ...run.stream,
              summary(header: ReportHeader): StreamSummary {
                const inner = run.stream!.summary(header);
                return { add: (row) => inner.add(row), finish: (calls) => withRunFacts(inner.finish(calls), status, marker) };
              },
            },
          }
        : {}),
    };
  },
};

/** The answers report's summary, files and table with what the run recorded: qa_run.json beside them, and the protocol status. */
function withRunFacts(out: Omit<ReportOutput, 'rows' | 'cores'>, status: string | null, marker: QaRunMarker | null): Omit<ReportOutput, 'rows' | 'cores'> {
  // qa_run.json beside the four, so rebuild writes it again (a run recorded before it had the record has none).
  const files = marker ? [...out.files, { name: QA_RUN_FILE, value: marker }].sort((a, b) => cmp(a.name, b.name)) : out.files;
  if (status === null) return { ...out, files };
  const label = status;
  const table = out.table;
  return {
    summary: { ...(out.summary as QaSummary), protocol_status: label },
    files,
    table: () => table().replace(/^[^\n]*/, (first) => `${first} [${label}]`),
  };
}

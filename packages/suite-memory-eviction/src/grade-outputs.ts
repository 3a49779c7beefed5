// The files of a grade run, folded from its log: qa.rows.jsonl (each planned answer row with its
// recorded grade, by row id), qa.summary.json and qa.stats.json (the statistics of those rows with
// the run's recorded settings), each saying whether the scripted model gave the answers.

import type { BootstrapOptions, DataOf, StoredEvent, SuiteFilesOutput } from 'evalog';
import { defineOutputs, jsonDocument, jsonLines, UserError } from 'evalog';
import { byRowId, type GradedRow } from './qa-grade.js';
import { QA_SUITES, type QaStats, qaStatsFromRows } from './qa-stats.js';
import { statusSuffixOf } from './step-config.js';

/** The files, in the order they are written. */
export const GRADE_FILES = ['qa.rows.jsonl', 'qa.summary.json', 'qa.stats.json'] as const;

/** A grade run whose log does not hold every row's grade (unfinished): grade-qa requires all of them. */
export class GradeRunIncompleteError extends UserError {
  override name = 'GradeRunIncompleteError';
  constructor(runId: string, missing: number, total: number) {
    super(`grade run ${runId}: ${missing} of ${total} rows have no recorded grade yet; run grade-qa again to finish it`);
  }
}

interface State {
  runId: string | null;
  started: DataOf<'RunStarted'> | null;
  /** Job id → its grade fields. */
  grades: Map<string, Record<string, unknown>>;
}

/** The config fields the files read (the suite's schema validated them when the run started). */
interface RecordedConfig {
  protocolId: string;
  answersScripted: boolean;
  protocolStatus: string;
  graderVersion: string;
  qaCapacity: number;
  bootstrap: BootstrapOptions;
}

function evolve(s: State, e: StoredEvent): State {
  if (e.type === 'RunStarted') {
    s.runId = e.runId;
    s.started = e.data;
  } else if (e.type === 'JobComputed' && e.jobId !== undefined) s.grades.set(e.jobId, e.data.output);
  return s;
}

function finish(s: State): SuiteFilesOutput {
  const started = s.started!;
  const missing = started.jobs.filter((j) => !s.grades.has(j.jobId)).length;
  if (missing > 0) throw new GradeRunIncompleteError(s.runId!, missing, started.jobs.length);
  const config = started.config as unknown as RecordedConfig;
  const rows = started.jobs.map((j) => ({ ...j.meta, ...s.grades.get(j.jobId) }) as GradedRow).sort(byRowId);
  const { summary, stats } = qaStatsFromRows(rows, {
    protocolId: config.protocolId,
    graderVersion: config.graderVersion,
    qaCapacity: config.qaCapacity,
    bootstrap: config.bootstrap,
  });
  // The figures say whether evalog's scripted model gave the answers (the protocol's fields, plus this one).
  const scripted = config.answersScripted;
  const protocol_status = config.protocolStatus;
  return {
    files: [
      { path: 'qa.rows.jsonl', content: jsonLines(rows) },
      { path: 'qa.summary.json', content: jsonDocument({ ...summary, scripted, protocol_status }) },
      { path: 'qa.stats.json', content: jsonDocument({ ...stats, scripted, protocol_status }) },
    ],
    table: () => statsLines(stats, statusSuffixOf(protocol_status)),
  };
}

/** One line per suite: cases, McNemar's p and the bootstrap difference. */
function statsLines(stats: QaStats, suffix: string): string {
  return QA_SUITES.map((name) => {
    const x = stats.suites[name];
    const m = x.mcnemar;
    const cases = m.both_correct + m.both_wrong + m.only_first_correct + m.only_second_correct;
    return `${name.padEnd(10)} cases ${cases}  McNemar p ${m.p_value}  difference ${x.bootstrap.mean_difference} [${x.bootstrap.lower}, ${x.bootstrap.upper}]${suffix}\n`;
  }).join('');
}

/** The grade-qa files as the suite's outputs. */
export const gradeOutputs = defineOutputs<State>({
  files: GRADE_FILES,
  initialState: () => ({ runId: null, started: null, grades: new Map() }),
  evolve,
  finish,
});

// The cases of a run: the pinned case file read (once per run, by the suite's prepare step), each case with its effective grader and with
// its templates checked, and the one request a case sends.
import { resolve } from 'node:path';
import type { ChatMessage } from '../../providers/chat.js';
import type { CaseSpec } from '../../harness/suite/types.js';
import { readPinnedCaseFile, type CaseFile, type CaseMessage } from './case-file.js';
import { promptVariants, type ArmSpec, type DatasetConfig } from './config.js';
import { CaseLineError, DatasetSuiteError } from './errors.js';
import { expectedProblem, parseGrader, type Grader } from './graders.js';
import { missingVars, renderTemplate } from './template.js';
import { modelGraded, type JudgeSample, type ModelGrader } from '../../graders/index.js';
import { readPinnedRubric } from './rubric.js';

/** A case as a job sees it. */
export interface DatasetCase {
  line: number;
  input: string | null;
  messages: CaseMessage[] | null;
  expected: unknown;
  /** The case's own grader, else the suite's. */
  grader: Grader;
  /** The judge when the grader is `model` (the run's rubric), else null. */
  judge: ModelGrader | null;
  vars: Record<string, unknown>;
}

/** The config's case file (relative paths against `baseDir`), read and checked against its pinned sha256. */
export function loadCaseFile(config: DatasetConfig, baseDir: string): CaseFile {
  if (!config.data) throw new DatasetSuiteError('dataset: no case file: give --data FILE.jsonl (or "data" in the config file)');
  return readPinnedCaseFile(resolve(baseDir, config.data.path), config.data.sha256);
}

/**
 * The cases with their effective graders; a case whose `expected` does not suit its grader, or that
 * lacks a variable a template uses, is a CaseLineError naming the file, the line and the variable.
 */
export function datasetCases(config: DatasetConfig, baseDir: string): CaseSpec<DatasetCase>[] {
  const file = loadCaseFile(config, baseDir);
  const graders = new Map<string, Grader>();
  const graderOf = (name: string) => {
    let g = graders.get(name);
    if (!g) {
      g = parseGrader(name) as Grader; // names were checked by the schema and the reader
      graders.set(name, g);
    }
    return g;
  };
  // The rubric is read (and its pin checked) only when some case is judged by a model.
  let judge: ModelGrader | null = null;
  const judgeOf = (fail: (detail: string) => Error): ModelGrader => {
    if (judge) return judge;
    if (!config.rubric) throw fail('grader model needs a rubric file: run with --grader model:RUBRIC.md');
    judge = modelGraded({ rubric: readPinnedRubric(config.rubric.path, config.rubric.sha256).text });
    return judge;
  };
  const templates = Object.entries(promptVariants(config.prompts)).sort(([a], [b]) => (a < b ? -1 : 1));
  const out = file.cases.map((raw): CaseSpec<DatasetCase> => {
    const fail = (detail: string) => new CaseLineError(file.path, raw.line, `case ${raw.id}: ${detail}`);
    const name = raw.grader ?? config.grader;
    const grader = graderOf(name);
    const problem = expectedProblem(grader, raw.expected);
    if (problem) throw fail(`${problem} (grader ${name})`);
    const values = raw.input === null ? raw.vars : { ...raw.vars, input: raw.input };
    const used: [string, string][] =
      raw.messages === null ? templates.map(([variant, t]) => [`prompt ${variant}`, t]) : raw.messages.map((m, i) => [`messages item ${i}`, m.content]);
    if (config.system !== null) used.push(['the system prompt', config.system]);
    for (const [where, t] of used) {
      const missing = missingVars(t, values);
      if (missing.length > 0) throw fail(`${where} uses ${missing.map((v) => `{{${v}}}`).join(', ')}, which this case does not have`);
    }
    const caseJudge = grader.kind === 'model' ? judgeOf(fail) : null;
    return { id: raw.id, data: { line: raw.line, input: raw.input, messages: raw.messages, expected: raw.expected, grader, judge: caseJudge, vars: raw.vars } };
  });
  return out;
}

/** The one request of a case in an arm: the system prompt, then the rendered template or the case's messages. */
export function datasetRequest(c: DatasetCase, arm: ArmSpec, config: DatasetConfig): { messages: ChatMessage[]; model?: string } {
  const values = c.input === null ? c.vars : { ...c.vars, input: c.input };
  const messages: ChatMessage[] = config.system === null ? [] : [{ role: 'system', content: renderTemplate(config.system, values) }];
  if (c.messages === null) messages.push({ role: 'user', content: renderTemplate(arm.template, values) });
  else for (const m of c.messages) messages.push({ role: m.role, content: renderTemplate(m.content, values) } as ChatMessage);
  return arm.model === null ? { messages } : { messages, model: arm.model };
}

/** What the judge is shown of a case's answer: the case input (or its messages, rendered), the expected value and the output; never the arm. */
export function judgeSample(c: DatasetCase, output: string): JudgeSample {
  const input = c.messages === null ? (c.input ?? '') : c.messages.map((m) => `${m.role}: ${renderTemplate(m.content, c.vars)}`).join('\n');
  return { input, expected: c.expected ?? null, output };
}

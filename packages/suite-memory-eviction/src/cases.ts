/**
 * Case construction (spec A3.4–A3.10): the official selection recomputed from the dataset and
 * checked against the manifest, the distractor bank, the per-case offsets, and the 45 cases.
 */
import { createHash } from 'node:crypto';
import type { MemoryEvictionConfig } from './config.js';
import { type DatasetRow, type LongMemEvalDataset, stringifyAnswer } from './dataset.js';
import { DatasetError } from './errors.js';
import { renderEvidence } from './evidence.js';
import { distractorCategory, distractorFactId, distractorSetup, type FactSetup, makeFact, supportFactId, supportSetup } from './facts.js';
import type { OfficialManifest } from './manifests.js';
import type { Protocol } from './protocol.js';
import { cpCompare, cpLength, pyStrip } from './text.js';
import { type EvalCase, type Fact, type OfficialScenario, SYNTHETIC_QUESTION_TYPE, SYNTHETIC_SCENARIO, type UsageMap } from './types.js';

type Selection = OfficialManifest['selection'];
type PoolConfig = MemoryEvictionConfig['pool'];

/** A row of the distractor bank. */
export interface BankEntry {
  question_id: string;
  question_type: string;
  evidence: string;
}

/**
 * A3.4: why a row is not an official candidate, or null when it is. Rules are tried in the order
 * of the spec and the first failing one is returned (the evidence is only rendered when needed).
 */
export function officialExclusionReason(row: DatasetRow, selection: Selection, file?: string): string | null {
  if (!selection.eligible_question_types.includes(row.question_type as string)) return 'question_type';
  if (selection.excluded_pilot_ids.includes(row.question_id)) return 'excluded_pilot_id';
  if (row.question_id.endsWith(selection.exclude_abstention_suffix)) return 'abstention';
  const answer = answerOf(row, file);
  const len = cpLength(pyStrip(answer));
  if (len < selection.answer_min_chars || len > selection.answer_max_chars) return 'answer_length';
  const lower = answer.toLowerCase();
  if (selection.answer_excluded_substrings.some((s) => lower.includes(s))) return 'answer_excluded_substring';
  const evidence = cpLength(renderEvidence(row, file));
  if (evidence < selection.evidence_min_chars || evidence > selection.evidence_max_chars) return 'evidence_length';
  return null;
}

/**
 * A3.4: per eligible type, the sorted eligible ids (first `take_per_question_type`), split into
 * scenarios (KU[5i:5i+5] + TR[5i:5i+5]) and compared with the manifest, order included.
 * Returns the recomputed ids by scenario; throws `DatasetError` on any difference.
 */
export function selectOfficialIds(official: OfficialManifest, dataset: LongMemEvalDataset): Record<OfficialScenario, string[]> {
  const sel = official.selection;
  const perType = sel.cases_per_type_per_scenario;
  if (sel.take_per_question_type !== official.scenario_order.length * perType)
    throw new DatasetError(
      dataset.file,
      `take_per_question_type (${sel.take_per_question_type}) must equal ${official.scenario_order.length} scenarios x ${perType}`,
    );
  const taken = new Map<string, string[]>();
  for (const type of sel.eligible_question_types) {
    const ids = dataset.rows
      .filter((row) => row.question_type === type && officialExclusionReason(row, sel, dataset.file) === null)
      .map((row) => row.question_id)
      .sort(cpCompare);
    if (ids.length < sel.take_per_question_type)
      throw new DatasetError(dataset.file, `not enough eligible ${type} rows: ${ids.length} < ${sel.take_per_question_type}`);
    taken.set(type, ids.slice(0, sel.take_per_question_type));
  }
  const out = {} as Record<OfficialScenario, string[]>;
  official.scenario_order.forEach((scenario, i) => {
    const expected = sel.eligible_question_types.flatMap((type) => taken.get(type)!.slice(perType * i, perType * (i + 1)));
    const listed = official.scenarios[scenario];
    if (expected.length !== listed.length || expected.some((id, k) => id !== listed[k]))
      throw new DatasetError(
        dataset.file,
        `official selection for ${scenario} does not match the manifest: dataset gives [${expected.join(', ')}], manifest lists [${listed.join(', ')}]`,
      );
    out[scenario] = expected;
  });
  return out;
}

/** A3.5: rows of `distractor_types` with evidence length in [min, max], sorted by id, first `distractor_bank_size`. */
export function buildDistractorBank(pool: PoolConfig, dataset: LongMemEvalDataset): BankEntry[] {
  const bank: BankEntry[] = [];
  for (const row of dataset.rows) {
    const type = row.question_type;
    if (typeof type !== 'string' || !pool.distractor_types.includes(type)) continue;
    const evidence = renderEvidence(row, dataset.file);
    const len = cpLength(evidence);
    if (len < pool.distractor_min_evidence_chars || len > pool.distractor_max_evidence_chars) continue;
    bank.push({ question_id: row.question_id, question_type: type, evidence });
  }
  bank.sort((a, b) => cpCompare(a.question_id, b.question_id));
  if (bank.length < pool.distractor_bank_size)
    throw new DatasetError(dataset.file, `the distractor bank needs exactly ${pool.distractor_bank_size} rows, only ${bank.length} qualify`);
  return bank.slice(0, pool.distractor_bank_size);
}

/** A3.6: first 4 bytes of sha256(`{namespace}:{caseId}`) as a big-endian uint32, mod `bankSize`. */
export function caseOffset(namespace: string, caseId: string, bankSize: number): number {
  return createHash('sha256').update(`${namespace}:${caseId}`, 'utf8').digest().readUInt32BE(0) % bankSize;
}

/** A3.6: `bank[(offset + i) mod len]` for i = 0..count−1 (wraps around). */
export function drawDistractors<T>(bank: readonly T[], namespace: string, caseId: string, count: number): T[] {
  const offset = caseOffset(namespace, caseId, bank.length);
  return Array.from({ length: count }, (_, i) => bank[(offset + i) % bank.length]!);
}

interface CaseHead {
  case_id: string;
  source: EvalCase['source'];
  scenario: EvalCase['scenario'];
  question_type: string;
  question: string;
  answer: string;
  question_date: string | null;
  loss_rank: number;
  support: string;
}

/**
 * A3.7–A3.10: the 40 official cases (scenario by scenario, each sorted by (question_type,
 * question_id) and zipped with the loss ranks) followed by the synthetic cases in manifest order.
 */
export function buildCases(protocol: Protocol, dataset: LongMemEvalDataset): EvalCase[] {
  const { config, official, synthetic } = protocol;
  if (dataset.sha256 !== config.dataset.sha256)
    throw new DatasetError(dataset.file, `dataset sha256 ${dataset.sha256} is not the pinned ${config.dataset.sha256}`);
  const selected = selectOfficialIds(official, dataset);
  const bank = buildDistractorBank(config.pool, dataset);

  const heads: CaseHead[] = [];
  for (const scenario of official.scenario_order) {
    const rows = selected[scenario].map((id) => dataset.byId.get(id)!);
    rows.sort((a, b) => cpCompare(a.question_type as string, b.question_type as string) || cpCompare(a.question_id, b.question_id));
    if (rows.length !== official.loss_ranks.length)
      throw new DatasetError(dataset.file, `${scenario} has ${rows.length} cases for ${official.loss_ranks.length} loss ranks`);
    for (const [k, row] of rows.entries())
      heads.push({
        case_id: row.question_id,
        source: 'longmemeval',
        scenario,
        question_type: row.question_type as string,
        question: textField(row, 'question', dataset.file),
        answer: answerOf(row, dataset.file),
        question_date: dateField(row, dataset.file),
        loss_rank: official.loss_ranks[k]!,
        support: renderEvidence(row, dataset.file),
      });
  }
  for (const c of synthetic.cases)
    heads.push({
      case_id: c.case_id,
      source: 'synthetic',
      scenario: SYNTHETIC_SCENARIO,
      question_type: SYNTHETIC_QUESTION_TYPE,
      question: c.question,
      answer: c.answer,
      question_date: null,
      loss_rank: c.loss_rank,
      support: c.support_fact,
    });
  return heads.map((h) => buildCase(h, bank, protocol, dataset.file));
}

function buildCase(h: CaseHead, bank: readonly BankEntry[], protocol: Protocol, file: string): EvalCase {
  const pool = protocol.config.pool;
  const drawn = drawDistractors(bank, pool.offset_namespace, h.case_id, pool.distractors);
  const sources = [h.case_id, ...drawn.map((d) => d.question_id)];
  if (new Set(sources).size !== sources.length) throw new DatasetError(file, `the fact pool of ${h.case_id} has duplicate source ids`);

  const entries: { id: string; content: string; source: string; setup: FactSetup }[] = [
    { id: supportFactId(h.case_id), content: h.support, source: h.case_id, setup: supportSetup(h.scenario) },
    ...drawn.map((d, i) => ({
      id: distractorFactId(h.case_id, i, d.question_id),
      content: d.evidence,
      source: d.question_id,
      setup: distractorSetup(h.scenario, i, h.loss_rank, distractorCategory(d.question_type)),
    })),
  ];
  entries.sort((a, b) => cpCompare(a.id, b.id));
  const facts: Fact[] = [];
  const usage: UsageMap = {};
  for (const e of entries) {
    const built = makeFact(e.id, e.content, e.source, e.setup, protocol.evaluationTime);
    facts.push(built.fact);
    if (built.usage !== null) usage[e.id] = built.usage;
  }
  const { support, ...rest } = h;
  void support;
  return { ...rest, facts, usage, support_fact_ids: [supportFactId(h.case_id)] };
}

function answerOf(row: DatasetRow, file?: string): string {
  if (!Object.hasOwn(row, 'answer')) throw new DatasetError(file ?? '(dataset)', 'the row has no answer', row.question_id);
  return stringifyAnswer(row.answer);
}

function textField(row: DatasetRow, key: string, file: string): string {
  const v = row[key];
  if (typeof v !== 'string') throw new DatasetError(file, `${key} must be a string`, row.question_id);
  return v;
}

function dateField(row: DatasetRow, file: string): string | null {
  const v = row.question_date;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new DatasetError(file, 'question_date must be a string', row.question_id);
  return v;
}

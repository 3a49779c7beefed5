/**
 * Small synthetic LongMemEval-shaped datasets for the memory-eviction tests (the real oracle file
 * cannot be downloaded here). The official rows use the real 40 case ids of the official manifest
 * with generated questions, answers and sessions; the distractor bank uses 40 generated rows
 * (by default with the bank ids recovered from the published fact ids, so fact ids match the
 * published rows); ineligible rows exercise every selection rule.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PyFloat, pythonJson } from '../../packages/suite-memory-eviction/src/python-json.js';

const MANIFEST_DIR = new URL('../../packages/suite-memory-eviction/manifests/', import.meta.url);

/** The 40 distractor-bank question ids, recovered from the published kept fact ids. */
export const PUBLISHED_BANK_IDS = [
  '001be529',
  '06f04340',
  '07b6f563',
  '0862e8bf',
  '09d032c9',
  '0a34ad58',
  '0edc2aef',
  '118b2229',
  '15745da0',
  '195a1a1b',
  '19b5f2b3',
  '1a1907b4',
  '1c0ddc50',
  '1d4e3b97',
  '1da05512',
  '1e043500',
  '1faac195',
  '21436231',
  '25e5aa4f',
  '29f2956b',
  '311778f1',
  '32260d93',
  '35a27287',
  '36580ce8',
  '37d43f65',
  '38146c39',
  '3b6f954b',
  '3d86fd0a',
  '3f1e9474',
  '4100d0a0',
  '4fd1909e',
  '505af2f5',
  '51a45a95',
  '54026fce',
  '545bd2b5',
  '577d4d32',
  '57f827a0',
  '58bf7951',
  '58ef2f1c',
  '5d3d2817',
] as const;

export type Turn = { role?: unknown; content?: unknown; has_answer?: unknown };
/** Special answers (not plain strings), by official case id: int, float, object, list. */
export const SPECIAL_ANSWERS = { '01493427': '25', '06db6396': '3.0', '07741c44': '{"a": "café", "b": 1}', '07741c45': '["x", 2]' } as const;
export type Row = Record<string, unknown> & { question_id: string };

/** Ids of the ineligible rows, by the rule each one breaks (each passes every other rule). */
export const INELIGIBLE = {
  wrongType: '00000000',
  abstention: '01000000_abs',
  excludedPilotKu: '0f05491a',
  excludedPilotTr: '7e974930',
  answerTooLong: '00000001',
  answerBlank: '00000002',
  answerNotEnough: '00000003',
  answerOnlyMentioned: '00000004',
  evidenceTooLong: '00000005',
  evidenceEmpty: '00000006',
} as const;

/** Bank-type rows that must stay out of the bank, and valid ones beyond the first 40. */
export const BANK_OUTSIDERS = { tooShort: '0000b001', tooLong: '0000b002', noTurns: '0000b003', beyondTake: ['ffff0001', 'ffff0002'] } as const;

/** The official case ids of the manifest, by question type (first 5 of each scenario are KU, last 5 TR). */
export function manifestIdsByType(): { 'knowledge-update': string[]; 'temporal-reasoning': string[] } {
  const manifest = JSON.parse(readFileSync(new URL('official.v1.json', MANIFEST_DIR), 'utf8')) as {
    scenario_order: string[];
    scenarios: Record<string, string[]>;
  };
  const ku: string[] = [];
  const tr: string[] = [];
  for (const s of manifest.scenario_order) {
    const ids = manifest.scenarios[s]!;
    ku.push(...ids.slice(0, 5));
    tr.push(...ids.slice(5));
  }
  return { 'knowledge-update': ku, 'temporal-reasoning': tr };
}

const session = (turns: Turn[]) => turns;

/** A row with one or more sessions; `sessions` are lists of turns. */
export function makeRow(id: string, type: string, answer: unknown, sessions: unknown[][], extra: Record<string, unknown> = {}): Row {
  return {
    question_id: id,
    question_type: type,
    question: `What is the answer to question ${id}?`,
    answer,
    question_date: '2023/05/20 (Sat) 02:21',
    haystack_session_ids: sessions.map((_, i) => `answer_${id}_${i + 1}`),
    haystack_dates: sessions.map((_, i) => `2023/05/${String(10 + i).padStart(2, '0')} (Wed) 1${i}:00`),
    haystack_sessions: sessions,
    answer_session_ids: sessions.map((_, i) => `answer_${id}_${i + 1}`),
    ...extra,
  };
}

/** An official-looking row: a marked answer turn in session 1, user turns only in session 2. */
function officialRow(id: string, type: string, n: number): Row {
  const answers: Record<number, unknown> = { 0: 25, 1: new PyFloat(3), 2: { b: 1, a: 'café' }, 3: ['x', 2] };
  const answer = answers[n] ?? `Answer ${n} for ${id}`;
  const s1 = session([
    { role: 'user', content: `I have a question about item ${n}.`, has_answer: false },
    { role: 'assistant', content: `Item ${n} is recorded as ${JSON.stringify(answer)}.`, has_answer: true },
  ]);
  const s2 = session([
    { role: 'user', content: `Earlier I mentioned item ${n} again.` },
    { role: 'assistant', content: 'Noted.' },
  ]);
  return makeRow(id, type, answer, [s1, s2]);
}

/** A bank row: one session with one user turn (evidence between 40 and 700 code points). */
function bankRow(id: string, n: number): Row {
  const type = n % 3 === 0 ? 'single-session-preference' : 'single-session-user';
  return makeRow(id, type, `Bank answer ${n}`, [
    [
      { role: 'user', content: `Distractor ${n}: I usually spend my weekends on hobby number ${n}.` },
      { role: 'assistant', content: 'Nice.' },
    ],
  ]);
}

export interface LongMemEvalOptions {
  /** Distractor bank ids (default PUBLISHED_BANK_IDS). */
  bankIds?: readonly string[];
  /** Include the ineligible rows and bank outsiders (default true). */
  ineligible?: boolean;
  /** Edit the rows before they are written. */
  transform?: (rows: Row[]) => Row[];
  /** Directory to write to (default a new temp directory). */
  dir?: string;
}

/** The rows of a synthetic dataset (not written). */
export function makeLongMemEvalRows(options: LongMemEvalOptions = {}): Row[] {
  const ids = manifestIdsByType();
  const rows: Row[] = [];
  let n = 0;
  for (const type of ['knowledge-update', 'temporal-reasoning'] as const) for (const id of ids[type]) rows.push(officialRow(id, type, n++));
  // One official row whose evidence is longer than 2000 UTF-16 units but not 2000 code points.
  const astral = rows.find((r) => r.question_id === ids['knowledge-update'][4])!;
  (astral.haystack_sessions as Turn[][])[0]!.push({ role: 'assistant', content: '🙂'.repeat(1500), has_answer: true });
  const bankIds = options.bankIds ?? PUBLISHED_BANK_IDS;
  for (const [i, id] of bankIds.entries()) rows.push(bankRow(id, i));
  // A bank row that fits 700 code points only when counted as code points.
  const bank0 = rows.find((r) => r.question_id === bankIds[0])!;
  (bank0.haystack_sessions as Turn[][])[0]!.push({ role: 'user', content: '🎉'.repeat(500) });

  if (options.ineligible ?? true) {
    const ok = (id: string, type: string, answer: unknown, sessions?: Turn[][]) =>
      rows.push(makeRow(id, type, answer, sessions ?? [[{ role: 'user', content: `The answer is ${String(answer)}`, has_answer: true }]]));
    ok(INELIGIBLE.wrongType, 'multi-session', 'Paris');
    ok(INELIGIBLE.abstention, 'knowledge-update', 'Paris');
    ok(INELIGIBLE.excludedPilotKu, 'knowledge-update', 'Paris');
    ok(INELIGIBLE.excludedPilotTr, 'temporal-reasoning', 'Tuesday');
    ok(INELIGIBLE.answerTooLong, 'knowledge-update', 'x'.repeat(101));
    ok(INELIGIBLE.answerBlank, 'temporal-reasoning', ' \t\u3000 ');
    ok(INELIGIBLE.answerNotEnough, 'knowledge-update', 'There is NOT ENOUGH information');
    ok(INELIGIBLE.answerOnlyMentioned, 'temporal-reasoning', 'It was only mentioned once');
    ok(INELIGIBLE.evidenceTooLong, 'knowledge-update', 'Paris', [[{ role: 'user', content: 'y'.repeat(2000) }]]);
    ok(INELIGIBLE.evidenceEmpty, 'temporal-reasoning', 'Paris', [
      [
        { role: 'assistant', content: 'no user turn here' },
        { role: 'user', content: 42 },
      ],
    ]);
    rows.push(
      makeRow(BANK_OUTSIDERS.tooShort, 'single-session-user', 'a', [[{ role: 'user', content: 'too short' }]], {
        haystack_session_ids: ['s'],
        haystack_dates: ['d'],
      }),
    );
    ok(BANK_OUTSIDERS.tooLong, 'single-session-preference', 'a', [[{ role: 'user', content: 'z'.repeat(700) }]]);
    ok(BANK_OUTSIDERS.noTurns, 'single-session-user', 'a', [[{ role: 'assistant', content: 'only the assistant speaks here, at length' }]]);
    for (const [i, id] of BANK_OUTSIDERS.beyondTake.entries()) rows.push(bankRow(id, 100 + i));
  }
  return options.transform ? options.transform(rows) : rows;
}

export interface WrittenFile {
  path: string;
  sha256: string;
}

export interface SyntheticDataset extends WrittenFile {
  dir: string;
  rows: Row[];
}

/** Writes a synthetic dataset (Python-style JSON, so `3.0` stays a float) and returns its path and hash. */
export function makeLongMemEvalDataset(options: LongMemEvalOptions = {}): SyntheticDataset {
  const rows = makeLongMemEvalRows(options);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'evalog-longmemeval-'));
  const path = join(dir, 'longmemeval_oracle.json');
  const bytes = Buffer.from(pythonJson(rows, { sortKeys: false }), 'utf8');
  writeFileSync(path, bytes);
  return { path, sha256: sha256(bytes), dir, rows };
}

/**
 * Writes a copy of the versioned config that pins `datasetSha256` (plus any edits by `mutate`)
 * to `dir` and returns its path and hash. Load it with `loadProtocol(undefined, { configPath })`.
 */
export function writeTestConfig(datasetSha256: string, options: { dir?: string; mutate?: (config: Record<string, unknown>) => void } = {}): WrittenFile {
  const config = JSON.parse(readFileSync(new URL('config.v1.json', MANIFEST_DIR), 'utf8')) as Record<string, unknown> & { dataset: { sha256: string } };
  config.dataset.sha256 = datasetSha256;
  options.mutate?.(config);
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'evalog-me-config-'));
  const path = join(dir, 'config.test.json');
  const bytes = Buffer.from(`${JSON.stringify(config, null, 2)}\n`, 'utf8');
  writeFileSync(path, bytes);
  return { path, sha256: sha256(bytes) };
}

/** A dataset plus a config pinning it, in one temp directory; `cleanup()` removes it. */
export function makeTestSetup(options: LongMemEvalOptions = {}): { dataset: SyntheticDataset; config: WrittenFile; cleanup: () => void } {
  const dataset = makeLongMemEvalDataset(options);
  const config = writeTestConfig(dataset.sha256, { dir: dataset.dir });
  return { dataset, config, cleanup: () => rmSync(dataset.dir, { recursive: true, force: true }) };
}

/** The protocol directory as a path (for tests that copy it). */
export const MANIFEST_DIR_PATH = fileURLToPath(MANIFEST_DIR);

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

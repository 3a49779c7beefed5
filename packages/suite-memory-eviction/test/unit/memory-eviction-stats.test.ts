// qa.summary.json and qa.stats.json recomputed from the published qa.rows.jsonl (A7, A8), value for
// value, by qaStatsFromRows and by `evalog memory-eviction stats` run in-process. The fixtures live
// outside the repository; temporary copies go to the OS temp folder only.

import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { CliIO } from 'evalog';
import { EXIT, gradeAnswer, InputError, jsonDocument, OutputExistsError, PUBLISHED_BOOTSTRAP } from 'evalog';
import { DEERMEM_PR4789, publishedFolder } from '../../../../test/support/published.js';
import { STATS_HELP, statsCommand } from '../../src/cli/stats.js';
import { type QaRow, QaRowsError, qaStatsFromRows, summarizeQaRows } from '../../src/qa-stats.js';

// Beside the project root, never copied in (test/support/published.ts: skipped when absent, failed when required).
const PUBLISHED = publishedFolder(DEERMEM_PR4789);
const fixture = (name: string) => PUBLISHED.path(name);
const readJson = (name: string): unknown => JSON.parse(PUBLISHED.read(name));

interface PublishedRow extends QaRow {
  row_id: string;
  prediction: string;
  grade_rule: string;
}
let cachedRows: PublishedRow[] | null = null;
/** The published rows, read on first use: only tests that need the folder call it. */
const publishedRows = (): PublishedRow[] =>
  (cachedRows ??= PUBLISHED.read('qa.rows.jsonl')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as PublishedRow));
const PROTOCOL = 'deermem-hybrid-v1-pr4789-reproduction-v1';
const OPTIONS = { protocolId: PROTOCOL, graderVersion: 'deterministic-overlap-v1', qaCapacity: 7, bootstrap: PUBLISHED_BOOTSTRAP };

describe('memory-eviction QA statistics (A7, A8)', () => {
  PUBLISHED.it('recomputes the published qa.stats.json and qa.summary.json from the published rows, value for value', () => {
    const rows = publishedRows();
    const { stats, summary } = qaStatsFromRows(rows, OPTIONS);
    // deep.equal compares numbers with ===: every float must be the published one exactly.
    expect(stats).to.deep.equal(readJson('qa.stats.json'));
    expect(summary).to.deep.equal(readJson('qa.summary.json'));
  });

  PUBLISHED.it('the published headline, spelled out', () => {
    const rows = publishedRows();
    const { stats, summary } = qaStatsFromRows(rows, OPTIONS);
    expect(stats.policies).to.deep.equal(['confidence', 'hybrid-v1']);
    expect(stats.suites.official.mcnemar).to.deep.equal({
      both_correct: 22,
      both_wrong: 4,
      only_first_correct: 1,
      only_second_correct: 13,
      p_value: 0.0018310546875,
    });
    expect(stats.suites.overall.bootstrap.mean_difference).to.equal(0.3555555555555555);
    expect(stats.suites.synthetic.bootstrap).to.deep.equal({ mean_difference: 0.8, lower: 0.4, upper: 1.0, iterations: 10000, seed: 4789, alpha: 0.05 });
    const acc = Object.fromEntries(summary.groups.map((g) => [`${g.scenario}/${g.policy}`, g.correct]));
    expect(acc).to.deep.equal({
      'access_help/confidence': 3,
      'access_help/hybrid-v1': 9,
      'confidence_control/confidence': 8,
      'confidence_control/hybrid-v1': 7,
      'confirmation_help/confidence': 3,
      'confirmation_help/hybrid-v1': 10,
      'noisy_signal_control/confidence': 9,
      'noisy_signal_control/hybrid-v1': 9,
      'correction_reserve/confidence': 1,
      'correction_reserve/hybrid-v1': 5,
    });
  });

  PUBLISHED.it('row order does not matter (pairs are sorted by case id)', () => {
    const rows = publishedRows();
    const shuffled = [...rows].reverse();
    expect(qaStatsFromRows(shuffled, OPTIONS)).to.deep.equal(qaStatsFromRows(rows, OPTIONS));
  });

  PUBLISHED.it('re-grades the 10 published synthetic rows against the reference NO: same grade_correct and grade_rule', () => {
    const rows = publishedRows();
    const synthetic = rows.filter((r) => r.source === 'synthetic');
    expect(synthetic).to.have.length(10);
    for (const r of synthetic) {
      expect(gradeAnswer(r.prediction, 'NO'), r.row_id).to.deep.equal({ correct: r.grade_correct, rule: r.grade_rule });
    }
  });

  PUBLISHED.it('the published rule tallies are the ones A9 reports', () => {
    const rows = publishedRows();
    const tally = (policy: string) => {
      const t: Record<string, number> = {};
      for (const r of rows.filter((x) => x.policy === policy)) t[r.grade_rule] = (t[r.grade_rule] ?? 0) + 1;
      return t;
    };
    expect(tally('confidence')).to.deep.equal({ exact: 16, substring: 8, insufficient: 20, 'numeric-conflict': 1 });
    expect(tally('hybrid-v1')).to.deep.equal({ exact: 25, substring: 15, insufficient: 3, 'numeric-conflict': 2 });
  });

  it('summary groups sort by (source, scenario, policy) in code-point order and accuracy = correct / cases', () => {
    const mk = (source: string, scenario: string, policy: string, ok: boolean): QaRow => ({
      case_id: `${scenario}-${ok}`,
      source,
      scenario,
      policy,
      capacity: 7,
      grade_correct: ok,
      grader_version: 'g',
    });
    const groups = summarizeQaRows([
      mk('b', 'x', 'p', true),
      mk('a', 'Z', 'p', false),
      mk('a', 'a', 'p', true),
      mk('a', 'a', 'p', false),
      mk('a', 'a', 'P', true),
    ]);
    expect(groups.map((g) => [g.source, g.scenario, g.policy, g.cases, g.correct, g.accuracy])).to.deep.equal([
      ['a', 'Z', 'p', 1, 0, 0],
      ['a', 'a', 'P', 1, 1, 1],
      ['a', 'a', 'p', 2, 1, 0.5],
      ['b', 'x', 'p', 1, 1, 1],
    ]);
  });

  PUBLISHED.describe('rejects rows that cannot form the published pairs', () => {
    const rows = publishedRows();
    const without = (rowId: string) => rows.filter((r) => r.row_id !== rowId);
    it('a case missing one policy', () => {
      expect(() => qaStatsFromRows(without('1cea1afa__hybrid-v1'), OPTIONS)).to.throw(QaRowsError, /cases missing one policy row: 1cea1afa/);
    });
    it('an unknown policy, a duplicate, a row_id that disagrees', () => {
      expect(() => qaStatsFromRows([...rows, { ...rows[0]!, policy: 'recency', row_id: `${rows[0]!.case_id}__recency` }], OPTIONS)).to.throw(
        QaRowsError,
        /unknown policy/,
      );
      expect(() => qaStatsFromRows([...rows, rows[0]!], OPTIONS)).to.throw(QaRowsError, /duplicate row/);
      expect(() => qaStatsFromRows([{ ...rows[0]!, row_id: 'x__confidence' }, ...rows.slice(1)], OPTIONS)).to.throw(QaRowsError, /row_id/);
    });
    it('another capacity or grader than the options name', () => {
      expect(() => qaStatsFromRows(rows, { ...OPTIONS, qaCapacity: 5 })).to.throw(QaRowsError, /capacity 7, expected the QA capacity 5/);
      expect(() => qaStatsFromRows(rows, { ...OPTIONS, graderVersion: 'v2' })).to.throw(QaRowsError, /grader_version/);
    });
    it('a suite without cases, and no rows at all', () => {
      expect(() =>
        qaStatsFromRows(
          rows.filter((r) => r.source === 'longmemeval'),
          OPTIONS,
        ),
      ).to.throw(QaRowsError, /suite synthetic has no cases/);
      expect(() => qaStatsFromRows([], OPTIONS)).to.throw(QaRowsError, /no QA rows/);
    });
    it('rows of one case that disagree on the source', () => {
      const bad = rows.map((r) => (r.row_id === '01493427__hybrid-v1' ? { ...r, source: 'synthetic' } : r));
      expect(() => qaStatsFromRows(bad, OPTIONS)).to.throw(QaRowsError, /disagree on source/);
    });
  });
});

// ---- CLI ---------------------------------------------------------------------------------------

const INPUT_ERRORS = [InputError, OutputExistsError];

/** Runs statsCommand as runCli would: input errors are printed and give exit code 2. */
async function invoke(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const io: CliIO = { stdout, stderr, env: {}, cwd };
  let code: number;
  try {
    code = await statsCommand(args, io);
  } catch (e) {
    if (!INPUT_ERRORS.some((E) => e instanceof E)) throw e;
    stderr.write(`${(e as Error).message}\n`);
    code = EXIT.badInput;
  }
  return { code, stdout: out, stderr: err };
}

describe('evalog memory-eviction stats', () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'evalog-me-stats-'));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  PUBLISHED.it('writes qa.stats.json and qa.summary.json equal to the published ones, canonical and atomic', async () => {
    const out = join(tmp, 'out');
    const r = await invoke([fixture('qa.rows.jsonl'), '--out', out], tmp);
    expect(r.code, r.stderr).to.equal(EXIT.ok);
    for (const name of ['qa.stats.json', 'qa.summary.json']) {
      const text = await readFile(join(out, name), 'utf8');
      expect(JSON.parse(text), name).to.deep.equal(readJson(name));
      expect(text).to.equal(jsonDocument(JSON.parse(text))); // sorted keys, 2-space indent, trailing newline
    }
    expect(r.stdout).to.include(`protocol ${PROTOCOL}`);
    expect(r.stdout).to.match(/official\s+40\s+23\s+35\s+1\/13\s+0\.0018310546875\s+0\.30000000000000004 \[0\.15000000000000002, 0\.45000000000000007\]/);
    expect(r.stdout).to.match(/synthetic\s+5\s+1\s+5\s+0\/4\s+0\.125/);
    expect(r.stdout).to.match(/overall\s+45\s+24\s+40\s+1\/17\s+0\.00014495849609375/);
  });

  PUBLISHED.it('resolves paths against the working directory', async () => {
    const r = await invoke([fixture('qa.rows.jsonl'), '--out', 'rel-out'], tmp);
    expect(r.code).to.equal(EXIT.ok);
    expect(JSON.parse(await readFile(join(tmp, 'rel-out', 'qa.stats.json'), 'utf8'))).to.deep.equal(readJson('qa.stats.json'));
  });

  it('refuses an existing --out folder, even an empty one', async () => {
    const out = join(tmp, 'exists');
    await mkdir(out);
    const r = await invoke([fixture('qa.rows.jsonl'), '--out', out], tmp);
    expect(r.code).to.equal(EXIT.badInput);
    expect(r.stderr).to.match(/exists already/);
  });

  PUBLISHED.it('a bad line is an input error naming the file and the line number', async () => {
    const file = join(tmp, 'qa.rows.jsonl');
    const lines = readFileSync(fixture('qa.rows.jsonl'), 'utf8').split('\n');
    lines.splice(3, 0, '{"case_id": oops');
    await writeFile(file, lines.join('\n'));
    const r = await invoke([file, '--out', join(tmp, 'o'), '--protocol-id', PROTOCOL], tmp);
    expect(r.code).to.equal(EXIT.badInput);
    expect(r.stderr).to.include(`${file} line 4 is not JSON`);
    await writeFile(file, `${lines.slice(0, 3).join('\n')}\n{"case_id": "a", "source": "synthetic"}\n`);
    const r2 = await invoke([file, '--out', join(tmp, 'o'), '--protocol-id', PROTOCOL], tmp);
    expect(r2.code).to.equal(EXIT.badInput);
    expect(r2.stderr).to.match(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line 4: field \\w+`));
  });

  PUBLISHED.it('protocol id: from qa_run.json beside the rows, else --protocol-id; sources must agree', async () => {
    const file = join(tmp, 'qa.rows.jsonl');
    await copyFile(fixture('qa.rows.jsonl'), file);
    const none = await invoke([file, '--out', join(tmp, 'a')], tmp);
    expect(none.code).to.equal(EXIT.badInput);
    expect(none.stderr).to.match(/no protocol_id .*pass --protocol-id/);
    const flagged = await invoke([file, '--out', join(tmp, 'b'), '--protocol-id', PROTOCOL], tmp);
    expect(flagged.code).to.equal(EXIT.ok);
    expect(JSON.parse(await readFile(join(tmp, 'b', 'qa.summary.json'), 'utf8'))).to.deep.equal(readJson('qa.summary.json'));
    await copyFile(fixture('qa_run.json'), join(tmp, 'qa_run.json'));
    const clash = await invoke([file, '--out', join(tmp, 'c'), '--protocol-id', 'other'], tmp);
    expect(clash.code).to.equal(EXIT.badInput);
    expect(clash.stderr).to.match(/disagrees/);
  });

  PUBLISHED.it('grader_version and capacity come from the rows and must agree across them', async () => {
    const file = join(tmp, 'qa.rows.jsonl');
    const lines = readFileSync(fixture('qa.rows.jsonl'), 'utf8').trimEnd().split('\n');
    const changed = lines.map((l, i) => (i === 5 ? JSON.stringify({ ...JSON.parse(l), capacity: 9 }) : l));
    await writeFile(file, `${changed.join('\n')}\n`);
    const r = await invoke([file, '--out', join(tmp, 'o'), '--protocol-id', PROTOCOL], tmp);
    expect(r.code).to.equal(EXIT.badInput);
    expect(r.stderr).to.match(/rows disagree on capacity/);
    const graded = lines.map((l, i) => (i === 7 ? JSON.stringify({ ...JSON.parse(l), grader_version: 'other' }) : l));
    await writeFile(file, `${graded.join('\n')}\n`);
    const r2 = await invoke([file, '--out', join(tmp, 'o'), '--protocol-id', PROTOCOL], tmp);
    expect(r2.stderr).to.match(/rows disagree on grader_version/);
  });

  PUBLISHED.it('incomplete pairs are an input error naming the file', async () => {
    const file = join(tmp, 'qa.rows.jsonl');
    const lines = readFileSync(fixture('qa.rows.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .filter((l) => !l.includes('"row_id": "1cea1afa__confidence"'));
    await writeFile(file, `${lines.join('\n')}\n`);
    const r = await invoke([file, '--out', join(tmp, 'o'), '--protocol-id', PROTOCOL], tmp);
    expect(r.code).to.equal(EXIT.badInput);
    expect(r.stderr).to.include(file).and.to.include('1cea1afa');
  });

  PUBLISHED.it('bootstrap options can be overridden; bad flags and missing arguments are input errors', async () => {
    const out = join(tmp, 'seeded');
    const r = await invoke([fixture('qa.rows.jsonl'), '--out', out, '--seed', '1', '--iterations', '200', '--alpha', '0.1'], tmp);
    expect(r.code).to.equal(EXIT.ok);
    const stats = JSON.parse(await readFile(join(out, 'qa.stats.json'), 'utf8'));
    expect(stats.suites.official.bootstrap).to.include({ seed: 1, iterations: 200, alpha: 0.1, mean_difference: 0.30000000000000004 });
    for (const args of [
      [fixture('qa.rows.jsonl')],
      ['--out', join(tmp, 'x')],
      [fixture('qa.rows.jsonl'), '--out', join(tmp, 'x'), '--alpha', '1.5'],
      [fixture('qa.rows.jsonl'), '--out', join(tmp, 'x'), '--iterations', '0'],
      [fixture('qa.rows.jsonl'), '--out', join(tmp, 'x'), '--bogus'],
      [join(tmp, 'missing.jsonl'), '--out', join(tmp, 'x')],
    ]) {
      const bad = await invoke(args, tmp);
      expect(bad.code, args.join(' ')).to.equal(EXIT.badInput);
    }
  });

  it('--help prints the usage', async () => {
    const r = await invoke(['--help'], tmp);
    expect(r.code).to.equal(EXIT.ok);
    expect(r.stdout).to.equal(STATS_HELP);
  });
});

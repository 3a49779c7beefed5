import { expect } from 'chai';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCsv } from '../../src/core/csv.js';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';

const NO_ENDPOINT = { EVALOG_BASE_URL: undefined, OPENAI_BASE_URL: undefined };

/** A row's leaves by dotted name, as the CSV should hold them. */
function leaves(v: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    const name = prefix ? `${prefix}.${k}` : k;
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) Object.assign(out, leaves(x as Record<string, unknown>, name));
    else out[name] = x === null ? '' : typeof x === 'string' ? x : JSON.stringify(x);
  }
  return out;
}

describe('evalog export <run> --rows (CLI in process)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
    const r = await runEvalogHere(['run', 'smoke', '--out', 'runs/s', '--case', 'fruit_*', '--case', 'bakery_order', '--repetitions', '1'], {
      cwd: tmp.dir,
      env: NO_ENDPOINT,
    });
    expect(r.code, r.stderr).to.equal(0);
  });
  after(() => tmp.cleanup());

  it('writes the rows as JSON Lines, byte for byte what rows.jsonl holds, and to stdout without --out', async () => {
    const r = await runEvalogHere(['export', 'runs/s', '--rows', '--out', 'out/rows.jsonl'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^exported 4 rows of run s to \S+rows\.jsonl\n$/);
    const live = await readFile(join(tmp.dir, 'runs/s/rows.jsonl'), 'utf8');
    expect(await readFile(join(tmp.dir, 'out/rows.jsonl'), 'utf8')).to.equal(live);
    const piped = await runEvalogHere(['export', 'runs/s', '--rows'], { cwd: tmp.dir });
    expect(piped.code, piped.stderr).to.equal(0);
    expect(piped.stdout).to.equal(live);
  });

  it('writes the rows as CSV: a sorted header of dotted columns, one record a row, values as in rows.jsonl', async () => {
    const r = await runEvalogHere(['export', 'runs/s', '--rows', '--out', 'out/rows.csv'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const rows = await readJsonl(join(tmp.dir, 'runs/s/rows.jsonl'));
    const [header, ...records] = parseCsv(await readFile(join(tmp.dir, 'out/rows.csv'), 'utf8')).map((x) => x.fields);
    expect(header).to.deep.equal([...header!].sort());
    expect(header).to.include.members(['case_id', 'passed', 'usage.total.input_tokens', 'checks.total_correct']);
    expect(records).to.have.length(rows.length);
    records.forEach((rec, i) => {
      const want = leaves(rows[i]!);
      expect(Object.fromEntries(header!.map((h, j) => [h, rec[j]]))).to.deep.equal(Object.fromEntries(header!.map((h) => [h, want[h] ?? ''])));
    });
    // Nothing but the two exports is left in the folder (no temp file).
    expect((await readdir(join(tmp.dir, 'out'))).sort()).to.deep.equal(['rows.csv', 'rows.jsonl']);
  });

  it('refuses another extension and an existing file, exit 2, leaving the file as it was', async () => {
    const bad = await runEvalogHere(['export', 'runs/s', '--rows', '--out', 'out/rows.tsv'], { cwd: tmp.dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr.trim()).to.match(/^evalog export: --rows --out must name a \.jsonl or \.csv file, got "out\/rows\.tsv"$/);
    await writeFile(join(tmp.dir, 'out/keep.csv'), 'mine\n');
    const taken = await runEvalogHere(['export', 'runs/s', '--rows', '--out', 'out/keep.csv'], { cwd: tmp.dir });
    expect(taken.code).to.equal(2);
    expect(taken.stderr).to.match(/keep\.csv exists already/);
    expect(await readFile(join(tmp.dir, 'out/keep.csv'), 'utf8')).to.equal('mine\n');
  });
});

import { expect } from 'chai';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { csvRecord } from '../../src/core/csv.js';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';

const QA = fileURLToPath(new URL('../../examples/qa.jsonl', import.meta.url));
const NO_ENDPOINT = { EVALOG_BASE_URL: undefined, OPENAI_BASE_URL: undefined };
const BOM = '\ufeff';

type Row = { case_id: string; passed: boolean; status: string; checks: Record<string, boolean> };
const verdicts = (rows: Row[]) => rows.map((r) => [r.case_id, r.status, r.passed, r.checks]);

describe('evalog run dataset with a JSON array or CSV case file, each with a BOM (CLI in process)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let cases: Record<string, unknown>[];
  before(async () => {
    tmp = await tempDir();
    const text = await readFile(QA, 'utf8');
    await writeFile(join(tmp.dir, 'qa.jsonl'), `${BOM}${text}`);
    cases = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  });
  after(() => tmp.cleanup());

  it('grades the cases of examples/qa.jsonl the same from .jsonl, .json and .csv, and each run replays', async () => {
    await writeFile(join(tmp.dir, 'qa.json'), `${BOM}[\n${cases.map((c) => `  ${JSON.stringify(c)}`).join(',\n')}\n]\n`);
    const vars = [...new Set(cases.flatMap((c) => Object.keys(c)))].filter((k) => !['id', 'input', 'messages', 'expected', 'grader'].includes(k)).sort();
    const header = ['id', 'input', 'messages', 'expected:json', 'grader', ...vars.map((v) => `${v}:json`)];
    const cell = (v: unknown) => (v === undefined ? '' : JSON.stringify(v));
    const rows = cases.map((c) =>
      csvRecord([
        String(c.id),
        typeof c.input === 'string' ? c.input : '',
        cell(c.messages),
        cell(c.expected),
        typeof c.grader === 'string' ? c.grader : '',
        ...vars.map((v) => cell(c[v])),
      ]),
    );
    await writeFile(join(tmp.dir, 'qa.csv'), `${BOM}${csvRecord(header)}${rows.join('')}`);

    const results: Row[][] = [];
    for (const name of ['qa.jsonl', 'qa.json', 'qa.csv']) {
      const out = `runs/${name.replace('.', '-')}`;
      const r = await runEvalogHere(['run', 'dataset', '--data', name, '--out', out], { cwd: tmp.dir, env: NO_ENDPOINT });
      expect(r.code, `${name}: ${r.stderr}`).to.equal(0);
      results.push(await readJsonl<Row>(join(tmp.dir, out, 'rows.jsonl')));
      const replay = await runEvalogHere(['replay', out], { cwd: tmp.dir, env: NO_ENDPOINT });
      expect(replay.code, `${name}: ${replay.stdout}${replay.stderr}`).to.equal(0);
    }
    expect(results[0]).to.have.length(21);
    expect(results[0]!.filter((r) => r.passed)).to.have.length(14);
    expect(verdicts(results[1]!)).to.deep.equal(verdicts(results[0]!));
    expect(verdicts(results[2]!)).to.deep.equal(verdicts(results[0]!));
  });

  it('a bad CSV row is refused before anything is written, naming the file and the line (exit 2)', async () => {
    await writeFile(join(tmp.dir, 'bad.csv'), 'id,input,expected\nok,x,y\nshort,x\n');
    const r = await runEvalogHere(['run', 'dataset', '--data', 'bad.csv', '--out', 'runs/bad'], { cwd: tmp.dir, env: NO_ENDPOINT });
    expect(r.code).to.equal(2);
    expect(r.stderr.trim()).to.match(/^evalog: \S*bad\.csv line 3: has 2 fields, the header 3$/);
  });
});

// Answers where people look (issue 18, item 5): every row of a dataset run has its input, output,
// expected value, verdict and reason; a long text is cut with the hash of the whole beside it; and
// `evalog show --failed` prints exactly the cases that failed, with their output and expected value.
// The CLI runs in this process (runCli) against the built-in scripted model.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packedHashes, removeBlob } from '../support/blob-pack.js';
import { readJsonl, runEvalogHere, tempDir } from '../support/cli.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

// The cases of examples/qa.jsonl the scripted player answers wrongly (as test/e2e/dataset.test.ts has them).
const FAILING = ['capital-australia', 'divide', 'json-primes', 'moon-cat', 'sky-color', 'speed-of-light', 'tallest-mountain'];

interface AnswerRow {
  job_id: string;
  case_id: string;
  passed: boolean;
  input: string | null;
  input_sha256: string | null;
  output: string | null;
  output_sha256: string | null;
  expected?: string;
  verdict: string | null;
  reason: string | null;
}

describe('rows with input, output, expected and verdict; evalog show (CLI in process)', function () {
  this.timeout(180_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  let rows: AnswerRow[];

  before(async () => {
    tmp = await tempDir();
    await mkdir(join(tmp.dir, 'examples'));
    await copyFile(join(EXAMPLES, 'qa.jsonl'), join(tmp.dir, 'examples/qa.jsonl'));
    const r = await runEvalogHere(['run', 'dataset', '--data', 'examples/qa.jsonl', '--out', 'runs/qa'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    rows = await readJsonl<AnswerRow>(join(tmp.dir, 'runs/qa/rows.jsonl'));
  });
  after(() => tmp.cleanup());

  it("a dataset run's rows hold the case's input, the model's answer, the expected value and the deciding check", () => {
    const row = (id: string) => rows.find((x) => x.case_id === id)!;
    expect(row('capital-australia')).to.deep.include({
      input: 'What is the capital of Australia?',
      input_sha256: sha('What is the capital of Australia?'),
      output: 'Sydney',
      output_sha256: sha('Sydney'),
      expected: 'Canberra',
      verdict: 'fail',
      reason: 'exact: expected "Canberra", got "Sydney"',
    });
    expect(row('capital-france')).to.deep.include({ input: 'What is the capital of France?', output: 'Paris', expected: 'Paris', verdict: 'pass' });
    // A json-field case's expected value is JSON; the reason names the field.
    expect(row('json-primes')).to.deep.include({ expected: '[2,3,5]', verdict: 'fail' });
    expect(row('json-primes').reason).to.match(/^json-field: field primes/);
    // The verdict agrees with `passed` on every row, and every row has its texts and their hashes.
    for (const x of rows) {
      expect(x.verdict, x.case_id).to.equal(x.passed ? 'pass' : 'fail');
      expect(x.input_sha256, x.case_id).to.equal(sha(x.input!));
      expect(x.output_sha256, x.case_id).to.equal(sha(x.output!));
      expect(x.expected, x.case_id).to.be.a('string');
    }
  });

  it('a long input and output are cut to report.maxTextChars, with the sha256 of the whole text', async () => {
    const prompt = `Please repeat: ${'lorem ipsum '.repeat(250)}`.trimEnd();
    await writeFile(join(tmp.dir, 'long.jsonl'), `${JSON.stringify({ id: 'long', input: prompt, expected: 'x' })}\n`);
    await writeFile(join(tmp.dir, 'cut.json'), JSON.stringify({ report: { maxTextChars: 50 } }));
    for (const [out, flags, max] of [
      ['runs/long-default', [], 2000],
      ['runs/long-cut', ['--config', 'cut.json'], 50],
    ] as const) {
      const r = await runEvalogHere(['run', 'dataset', '--data', 'long.jsonl', ...flags, '--out', out], { cwd: tmp.dir });
      expect(r.code, r.stderr).to.equal(0);
      const [row] = await readJsonl<AnswerRow>(join(tmp.dir, out, 'rows.jsonl'));
      expect(row!.input, out).to.equal(`${prompt.slice(0, max)} … [${prompt.length - max} more characters]`);
      expect(row!.input_sha256, out).to.equal(sha(prompt));
      expect(row!.output_sha256, out).to.match(/^[0-9a-f]{64}$/);
      if (max === 50) expect(row!.output, out).to.match(/^.{50} … \[\d+ more characters\]$/s);
    }
  });

  it('evalog show --failed prints exactly the failed cases, each with its output and expected value', async () => {
    const r = await runEvalogHere(['show', 'runs/qa', '--failed'], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    const blocks = r.stdout.split(/^(?===)/m).filter((b) => b.startsWith('=='));
    const cases = blocks.map((b) => /· case (\S+) ·/.exec(b)![1]);
    expect(cases).to.deep.equal(FAILING);
    for (const b of blocks) {
      const id = /· case (\S+) ·/.exec(b)![1]!;
      const row = rows.find((x) => x.case_id === id)!;
      expect(b, id).to.match(/· FAIL =*\n/);
      expect(b, id).to.include(`  output:   ${row.output!.slice(0, 40)}`);
      expect(b, id).to.include(`  expected: ${row.expected}`);
      expect(b, id).to.include(`  reason:   ${row.reason!.slice(0, 40)}`);
    }
    expect(r.stdout).to.include(`${FAILING.length} of ${rows.length} jobs did not pass`);
  });

  it('evalog show --job prints that one job; an unknown job id is exit 2 naming it', async () => {
    const one = await runEvalogHere(['show', 'runs/qa', '--job', 'capital-france:default:1'], { cwd: tmp.dir });
    expect(one.code, one.stderr).to.equal(0);
    expect(one.stdout.match(/^==/gm)).to.have.length(1);
    expect(one.stdout).to.include('· PASS').and.include('  output:   Paris').and.include('  expected: Paris');
    const bad = await runEvalogHere(['show', 'runs/qa', '--job', 'nope:default:1'], { cwd: tmp.dir });
    expect(bad.code).to.equal(2);
    expect(bad.stderr.trim()).to.equal('evalog show: run qa has no job "nope:default:1" (--job)');
    expect(bad.stdout).to.equal('');
  });

  // Last: it damages the run's log.
  it('evalog show names a missing blob (exit 2) rather than showing a row without its input', async () => {
    const logDir = join(tmp.dir, 'runs/qa/log');
    const [file] = await packedHashes(logDir);
    await removeBlob(logDir, file!);
    const r = await runEvalogHere(['show', 'runs/qa', '--failed'], { cwd: tmp.dir });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include(`blob ${file}`).and.include('is missing');
    expect(r.stdout).to.equal('');
  });
});

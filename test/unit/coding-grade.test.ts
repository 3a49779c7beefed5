// The coding suite's grader: the case's hidden tests, each in a restricted process on a copy of the
// workspace the job left (the artifact's changes, or an external agent's captured folder), one
// check per hidden test, with the workspace and its diff handed to the grader to record.
import { expect } from 'chai';
import type { GradeInput } from '../../src/harness/suite/types.js';
import { runTestFiles } from '../../src/sandbox/index.js';
import { changesArtifact, gradeCoding, loadCodingCases, type CodingCase } from '../../src/suites/coding/index.js';

const cases = new Map(loadCodingCases().map((c) => [c.id, c.data]));
const sum = cases.get('sum_numbers')!;
const work = (changes: Record<string, string | null> | null): GradeInput => ({ final: changes && changesArtifact(changes), first: null, answer: null });
const SUM = 'src/sum.js';

describe('coding suite: the grader', function () {
  this.timeout(60_000);

  it('passes every hidden check of a correct solution and records its diff', async () => {
    const g = await gradeCoding(sum, work({ [SUM]: 'export function sum(xs) {\n  return xs.reduce((a, b) => a + b, 0);\n}\n' }));
    expect(g.checks.map((c) => [c.checkId, c.visibility, c.passed, c.detail])).to.deep.equal([
      ['hidden:sum_long', 'hidden', true, 'passed'],
      ['hidden:sum_pure', 'hidden', true, 'passed'],
      ['hidden:sum_single', 'hidden', true, 'passed'],
    ]);
    expect(g.workspace!.files.map((f) => [f.path, f.change])).to.deep.equal([[SUM, 'modified']]);
    expect(g.workspace!.diff).to.contain('+  return xs.reduce((a, b) => a + b, 0);');
  });

  it('fails the untouched stub with the error its tests threw, and records an empty diff', async () => {
    const g = await gradeCoding(sum, work(null));
    expect(g.checks.every((c) => !c.passed)).to.equal(true);
    expect(g.checks[0]!.detail).to.equal('failed: Error: sum is not written yet');
    expect(g.workspace).to.deep.equal({ files: [], skipped: [], diff: '' });
  });

  it('fails a wrong answer with the assertion, per check: a partly right solution passes some', async () => {
    // Right on the long list and the single values, but it sorts the caller's list in place.
    const sorting = 'export function sum(xs) {\n  xs.sort();\n  return xs.reduce((a, b) => a + b, 0);\n}\n';
    const g = await gradeCoding(sum, work({ [SUM]: sorting }));
    expect(Object.fromEntries(g.checks.map((c) => [c.checkId, c.passed]))).to.deep.equal({
      'hidden:sum_long': true,
      'hidden:sum_pure': false,
      'hidden:sum_single': true,
    });
    expect(g.checks.find((c) => !c.passed)!.detail).to.match(/^failed: AssertionError/);
  });

  it('fails code that never returns as a timeout, and code that does not parse as a syntax error', async () => {
    const looping = await gradeCoding(sum, work({ [SUM]: 'export function sum() {\n  for (;;) {}\n}\n' }));
    expect(looping.checks.map((c) => c.detail)).to.deep.equal(Array(3).fill('timeout: timed out after 5000 ms'));
    const broken = await gradeCoding(sum, work({ [SUM]: 'export function sum(xs {\n' }));
    expect(broken.checks.every((c) => !c.passed && c.detail.startsWith('failed: SyntaxError'))).to.equal(true);
  });

  it("grades an external agent's captured workspace over the artifact, and keeps its skipped files", async () => {
    const captured: GradeInput = {
      ...work({ [SUM]: 'export const sum = () => -1;\n' }),
      workspace: { changed: { [SUM]: 'export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n' }, skipped: [{ path: 'logo.png', reason: 'binary' }] },
    };
    const g = await gradeCoding(sum, captured);
    expect(g.checks.every((c) => c.passed)).to.equal(true);
    expect(g.workspace!.skipped).to.deep.equal([{ path: 'logo.png', reason: 'binary' }]);
  });

  it('never puts a hidden test into the files a job starts with', () => {
    for (const c of cases.values()) {
      const seeded = Object.values(c.files).join('\n');
      for (const [name, text] of Object.entries(c.hidden)) expect(seeded, `${c.id}: ${name}`).not.to.contain(text.trim());
      expect(
        Object.keys(c.files).some((p) => p.includes('hidden')),
        c.id,
      ).to.equal(false);
    }
  });

  it("passes every shipped case's hidden tests with a right solution, so each can pass", async () => {
    const right: Record<string, Record<string, string>> = {
      sum_numbers: { [SUM]: 'export const sum = (xs) => xs.reduce((a, b) => a + b, 0);\n' },
      reverse_words: { 'src/words.js': "export const reverseWords = (t) => t.split(' ').reverse().join(' ');\n" },
      clamp_value: { 'src/clamp.js': 'export const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);\n' },
      fix_average: { 'src/average.js': cases.get('fix_average')!.files['src/average.js']!.replace('(numbers.length - 1)', 'numbers.length') },
      slugify_title: { 'src/slug.js': "export const slugify = (t) => t.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');\n" },
    };
    expect(Object.keys(right).sort()).to.deep.equal([...cases.keys()].sort());
    for (const [id, changes] of Object.entries(right)) {
      const g = await gradeCoding(cases.get(id)!, work(changes));
      expect(
        g.checks.filter((x) => !x.passed),
        id,
      ).to.deep.equal([]);
    }
  });

  it("fails every shipped case's stub, so each hidden test can fail", async () => {
    for (const [id, c] of cases) {
      const g = await gradeCoding(c as CodingCase, work(null));
      expect(
        g.checks.some((x) => !x.passed),
        id,
      ).to.equal(true);
    }
  });
});

describe('coding suite: the test sandbox', function () {
  this.timeout(60_000);

  it('refuses the network, files outside the copy, writes and child processes', async () => {
    const files: Record<string, string> = {
      'package.json': '{"type":"module"}',
      't/net.js': "import { connect } from 'node:net'; connect(80, '127.0.0.1');",
      't/fetch.js': "await fetch('http://127.0.0.1:9/');",
      't/read.js': "import { readFileSync } from 'node:fs'; readFileSync('/etc/hostname');",
      't/write.js': "import { writeFileSync } from 'node:fs'; writeFileSync('out.txt', 'x');",
      't/spawn.js': "import { execSync } from 'node:child_process'; execSync('true');",
      't/ok.js': "import { readFileSync } from 'node:fs'; JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));",
    };
    const results = await runTestFiles({ files, tests: Object.keys(files).filter((f) => f.startsWith('t/')) });
    expect(Object.fromEntries(results.map((r) => [r.test, r.passed]))).to.deep.equal({
      't/net.js': false,
      't/fetch.js': false,
      't/read.js': false,
      't/write.js': false,
      't/spawn.js': false,
      't/ok.js': true,
    });
    expect(results[0]!.detail).to.equal('Error: network access is not allowed in the sandbox');
  });

  it('reads a node:test failure, and takes the temporary folder out of what a failure says', async () => {
    const files = {
      'a.test.js': "import test from 'node:test'; test('adds', () => { throw new Error('no: ' + import.meta.url); });",
    };
    const [r] = await runTestFiles({ files, tests: ['a.test.js'] });
    expect(r).to.deep.include({ passed: false, status: 'failed', detail: 'test "adds" failed' });
    const [thrown] = await runTestFiles({ files: { 'b.js': 'throw new Error(import.meta.url);' }, tests: ['b.js'] });
    expect(thrown!.detail).to.equal('Error: file://./b.js');
  });
});

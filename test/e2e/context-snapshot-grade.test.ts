import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTasks, type Task } from '../../src/suites/context-snapshot/index.js';
import { runEvalog, tempDir } from '../support/cli.js';

interface Printed {
  case: string;
  kind: string;
  valid: boolean;
  error?: string;
  checks: { check: string | number; passed: boolean }[];
  passed: number;
  total: number;
}

const task = (id: string): Task => loadTasks().find((t) => t.id === id)!;
const checkIds = (t: Task): string[] => (t.kind === 'json' ? Object.keys(t.expected) : t.checks.map((c) => c.id));

describe('evalog context-snapshot grade (child processes)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(async () => {
    await tmp?.cleanup();
  });

  /** Writes `content` to a file and grades it; expects exit 0 and one JSON document. */
  async function graded(args: string[], name: string, content: string): Promise<Printed> {
    const file = join(tmp.dir, name);
    await writeFile(file, content);
    const r = await runEvalog(['context-snapshot', 'grade', ...args, file], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    return JSON.parse(r.stdout) as Printed;
  }

  /** Runs a bad invocation: exit 2, one line on stderr naming `what`, nothing on stdout. */
  async function refused(args: string[], what: RegExp): Promise<void> {
    const r = await runEvalog(['context-snapshot', 'grade', ...args], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(2);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trimEnd().split('\n'), r.stderr).to.have.length(1);
    expect(r.stderr).to.match(what);
  }

  describe('against the bundled tasks', () => {
    for (const id of ['rate_limits', 'pagination']) {
      const t = task(id);
      it(`${id} (${t.kind}): the reference solution passes every hidden check; a wrong one fails exactly its listed checks`, async () => {
        const ext = t.kind === 'json' ? 'json' : 'js';
        const right = await graded(['--case', id], `${id}.right.${ext}`, t.referenceSolution);
        expect(right).to.deep.equal({
          case: id,
          kind: t.kind,
          valid: true,
          checks: checkIds(t).map((check) => ({ check, passed: true })),
          passed: checkIds(t).length,
          total: checkIds(t).length,
        });
        const wrong = t.wrongSolutions[0]!;
        const bad = await graded(['--case', id], `${id}.wrong.${ext}`, wrong.content);
        expect(bad.valid).to.equal(true);
        expect(bad.checks.filter((c) => !c.passed).map((c) => c.check)).to.deep.equal(wrong.fails);
        expect(bad.passed).to.equal(checkIds(t).length - wrong.fails.length);
        expect(bad.total).to.equal(checkIds(t).length);
      });
    }

    it('an invalid artifact is graded too (exit 0): valid false, the reason, every check failed', async () => {
      const out = await graded(['--case', 'pagination'], 'pagination.bad.js', 'const page = require("fs");\n');
      expect(out.valid).to.equal(false);
      expect(out.error).to.be.a('string').and.not.equal('');
      expect(out.passed).to.equal(0);
      expect(out.total).to.equal(8);
    });
  });

  describe('bad input: exit 2 with one line', () => {
    it('an unknown case names the known ones', async () => {
      const file = join(tmp.dir, 'x.json');
      await writeFile(file, '{}');
      await refused(['--case', 'no_such_case', file], /--case: unknown case "no_such_case" \(bundled tasks: rate_limits, invoice_total, .*storage_policy\)/);
    });
    it('an unreadable file is named', async () => {
      await refused(['--case', 'rate_limits', join(tmp.dir, 'missing.json')], /missing\.json: cannot read the artifact: no such file/);
      await refused(['--case', 'rate_limits', tmp.dir], /cannot read the artifact: a folder, not a file/);
    });
    it('no --case, no file, or an unknown flag', async () => {
      await refused([join(tmp.dir, 'x.json')], /give --case ID/);
      await refused(['--case', 'rate_limits'], /exactly one artifact FILE/);
      await refused(['--case', 'rate_limits', '--bogus', 'x'], /bogus/);
    });
  });
});

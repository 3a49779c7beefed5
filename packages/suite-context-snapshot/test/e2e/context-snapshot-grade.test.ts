import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTasks, type Task } from '../../src/index.js';
import { runEvalog, runEvalogHere, tempDir } from '../../../../test/support/cli.js';

interface Printed {
  case: string;
  kind: string;
  valid: boolean;
  error?: string;
  checks: { check: string | number; passed: boolean }[];
  passed: number;
  total: number;
}

const PROTOCOL = fileURLToPath(new URL('../../../../test/fixtures/context-snapshot-protocol/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../../../test/fixtures/context-snapshot-protocol-artifacts/', import.meta.url));
// The stand-in folder is not the published one, so every use needs --allow-unpinned.
const STAND_IN = ['--protocol-dir', PROTOCOL, '--allow-unpinned'];
const HAS_PYTHON = spawnSync('python3', ['--version']).status === 0;
const NO_PYTHON = 'skipped: python3 is not on PATH, so the protocol folder cannot be read';

const task = (id: string): Task => loadTasks().find((t) => t.id === id)!;
const checkIds = (t: Task): string[] => (t.kind === 'json' ? Object.keys(t.expected) : t.checks.map((c) => c.id));

describe('evalog context-snapshot grade (CLI in process; a child process where PATH matters)', function () {
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
    const r = await runEvalogHere(['context-snapshot', 'grade', ...args, file], { cwd: tmp.dir });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.equal('');
    return JSON.parse(r.stdout) as Printed;
  }

  /** Runs a bad invocation: exit 2, one line on stderr naming `what`, nothing on stdout. */
  async function refused(args: string[], what: RegExp): Promise<void> {
    const r = await runEvalogHere(['context-snapshot', 'grade', ...args], { cwd: tmp.dir });
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

  describe(`against the stand-in protocol folder (--protocol-dir)${HAS_PYTHON ? '' : ` (${NO_PYTHON})`}`, () => {
    before(function () {
      if (!HAS_PYTHON) this.skip(); // NO_PYTHON: python3 is not on PATH, so the protocol folder cannot be read
    });

    /** Grades one of the fixture artifacts (`<case>.<variant>.<ext>`) against its case. */
    async function fixture(name: string): Promise<Printed> {
      return graded(['--case', name.split('.')[0]!, ...STAND_IN], name, await readFile(join(ARTIFACTS, name), 'utf8'));
    }
    const failing = (p: Printed) => p.checks.filter((c) => !c.passed).map((c) => c.check);

    it('Python: a correct artifact passes every check; a wrong one fails the checks it gets wrong, numbered from 0', async () => {
      const right = await fixture('parcel_fee.correct.py');
      expect(right).to.deep.equal({
        case: 'parcel_fee',
        kind: 'python',
        valid: true,
        checks: [0, 1, 2, 3, 4, 5].map((check) => ({ check, passed: true })),
        passed: 6,
        total: 6,
      });
      const wrong = await fixture('parcel_fee.wrong.py');
      expect([wrong.valid, failing(wrong), wrong.passed, wrong.total]).to.deep.equal([true, [1, 4, 5], 3, 6]);
    });

    it('Python: an input-mutating artifact fails those checks; an importing one is invalid with no checks', async () => {
      const mutates = await fixture('tag_list.mutates.py');
      expect([mutates.valid, failing(mutates), mutates.passed, mutates.total]).to.deep.equal([true, [0, 1], 1, 3]);
      const imports = await fixture('duration_seconds.imports.py');
      expect(imports).to.deep.include({ case: 'duration_seconds', kind: 'python', valid: false, checks: [], passed: 0, total: 0 });
      expect(imports.error).to.match(/Import is not allowed/);
    });

    it('JSON: correct passes; a wrong value fails its key; 1 is not the boolean true; an extra key is invalid though every value matches', async () => {
      const right = await fixture('cache_settings.correct.json');
      expect(right).to.deep.equal({
        case: 'cache_settings',
        kind: 'json',
        valid: true,
        checks: ['ttl_seconds', 'max_entries', 'eviction', 'shared'].map((check) => ({ check, passed: true })),
        passed: 4,
        total: 4,
      });
      expect(failing(await fixture('cache_settings.wrong.json'))).to.deep.equal(['ttl_seconds']);
      expect(failing(await fixture('backup_window.wrong.json'))).to.deep.equal(['verify']);
      const extra = await fixture('cache_settings.extra-key.json');
      expect([extra.valid, extra.passed, extra.total]).to.deep.equal([false, 4, 4]);
      expect(extra.error).to.match(/unexpected: region/);
    });

    it('the stand-in without --allow-unpinned is refused (exit 2, one line naming the file and both hashes)', async () => {
      await refused(
        ['--case', 'parcel_fee', '--protocol-dir', PROTOCOL, join(ARTIFACTS, 'parcel_fee.correct.py')],
        /cases\.py: .*sha256 [0-9a-f]{64}.*published [0-9a-f]{64}.*--allow-unpinned/,
      );
    });

    it('without python3 on PATH: exit 1 with one line saying python3 is needed (no verdict on the artifact)', async () => {
      // A child process: the sandbox looks python3 up on its own process's PATH, which is what this changes.
      const r = await runEvalog(['context-snapshot', 'grade', '--case', 'parcel_fee', ...STAND_IN, join(ARTIFACTS, 'parcel_fee.correct.py')], {
        cwd: tmp.dir,
        env: { PATH: tmp.dir },
      });
      expect(r.code, r.stderr).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr.trimEnd().split('\n')).to.have.length(1);
      expect(r.stderr).to.match(/python3 is needed .* python3 was not found on PATH/);
    });

    it('an unknown case names the protocol cases; a folder that is not there is named', async () => {
      await refused(
        ['--case', 'rate_limits', ...STAND_IN, join(ARTIFACTS, 'parcel_fee.correct.py')],
        /unknown case "rate_limits" \(cases of .*: cache_settings, parcel_fee, .*mirror_policy\)/,
      );
      await refused(['--case', 'parcel_fee', '--protocol-dir', join(tmp.dir, 'nowhere'), join(ARTIFACTS, 'parcel_fee.correct.py')], /nowhere: no such folder/);
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
      await refused(['--case', 'rate_limits', '--allow-unpinned', join(tmp.dir, 'x.json')], /--allow-unpinned applies only with --protocol-dir/);
    });
  });
});

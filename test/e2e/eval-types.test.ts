// The short-form example type-checks in a project of its own that has only evalog installed (no
// zod, no @types of evalog's parts): node_modules/evalog links to this checkout, whose package.json
// "exports" give the built types of dist/ (`npm run build`). A file with a wrong field must fail the
// same check, so the check is known to bite; `z` comes from 'evalog' itself.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT } from '../support/compile.js';
import { tempDir } from '../support/cli.js';

const TSC = join(PROJECT, 'node_modules', 'typescript', 'bin', 'tsc');
const TYPES = join(PROJECT, 'dist', 'api', 'index.d.ts');

describe('examples/suite-short type-checks with only evalog installed (tsc, child process)', function () {
  this.timeout(120_000);
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  const tsc = () => spawnSync(process.execPath, [TSC, '-p', tmp.dir], { cwd: tmp.dir, encoding: 'utf8' });

  before(async () => {
    // Not skipped: a checkout without a build has no types to install, and says so.
    expect(existsSync(TYPES), 'dist/api/index.d.ts: run `npm run build`').to.equal(true);
    expect(readFileSync(TYPES, 'utf8'), 'dist/ predates defineEval: run `npm run build`').to.include('defineEval');
    tmp = await tempDir('evalog-eval-types-');
    mkdirSync(join(tmp.dir, 'node_modules'));
    symlinkSync(PROJECT, join(tmp.dir, 'node_modules', 'evalog'), 'dir');
    writeFileSync(join(tmp.dir, 'package.json'), JSON.stringify({ name: 'my-evals', private: true, type: 'module', dependencies: { evalog: '*' } }));
    writeFileSync(
      join(tmp.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: true, types: [] },
        include: ['*.ts'],
      }),
    );
    for (const f of ['suite.ts', 'cases.jsonl']) copyFileSync(join(PROJECT, 'examples/suite-short', f), join(tmp.dir, f));
    // zod's z from evalog: a user's schema for a jsonSchema scorer needs no zod of its own.
    writeFileSync(
      join(tmp.dir, 'with-z.ts'),
      `import { defineEval, jsonSchema, z } from 'evalog';\nexport default defineEval({ name: 'z', data: [{ input: 'x' }], task: '{{input}}', scorers: [jsonSchema(z.object({ a: z.number() }))] });\n`,
    );
  });
  after(() => tmp?.cleanup());

  it('passes tsc --noEmit, with no zod in the project', () => {
    expect(existsSync(join(tmp.dir, 'node_modules', 'zod'))).to.equal(false);
    const r = tsc();
    expect(r.status, r.stdout + r.stderr).to.equal(0);
  });

  it('fails tsc on a wrong field, naming the file and line', () => {
    writeFileSync(
      join(tmp.dir, 'wrong.ts'),
      `import { defineEval } from 'evalog';\nexport default defineEval({ name: 'w', data: [{ input: 'x' }], task: '{{input}}', scorers: 'equals' });\n`,
    );
    const r = tsc();
    expect(r.status).to.not.equal(0);
    expect(r.stdout).to.match(/wrong\.ts\(2,\d+\): error TS2322/);
  });
});

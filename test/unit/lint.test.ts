// Lint and format (issue 14, part 8): Biome, with the repository's biome.jsonc, finds nothing in
// the code base; and the same config does bite on a planted file, so a rule set that stopped
// checking would fail here too.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const BIOME = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

interface Outcome {
  code: number;
  out: string;
}

/** `biome check` (lint and format, nothing written) in `cwd`, as `npx biome check` would. */
async function check(cwd: string, paths: string[] = []): Promise<Outcome> {
  const run = promisify(execFile);
  const args = [BIOME, 'check', '--colors=off', '--max-diagnostics=50', ...paths];
  return run(process.execPath, args, { cwd, maxBuffer: 16 << 20 }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
  );
}

describe('lint and format (Biome)', function () {
  this.timeout(120_000);

  it('finds nothing in src, test, bench, scripts and examples', async () => {
    const r = await check(ROOT);
    expect(r.code, `npx biome check found something (fix it, or \`npx biome check --write\` for the format):\n${r.out}`).to.equal(0);
  });

  it('reports a lint finding and a format finding in a planted file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'evalog-lint-'));
    try {
      await copyFile(join(ROOT, 'biome.jsonc'), join(dir, 'biome.jsonc'));
      await mkdir(join(dir, 'src'));
      // A comma operator (lint) and double quotes (format).
      await writeFile(join(dir, 'src', 'planted.ts'), 'let a = 0;\nexport const b = ((a += 1), "x");\n');
      const r = await check(dir, ['src']);
      expect(r.code).to.not.equal(0);
      expect(r.out).to.include('lint/complexity/noCommaOperator').and.include('format');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

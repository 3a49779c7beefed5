// The house rule (DESIGN.md "Layout"): layers import one way and nothing imports itself in a
// cycle. dependency-cruiser runs with the repository's own .dependency-cruiser.cjs, on src/ and on
// small planted trees, so a rule that stopped biting would fail here too.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}
interface CruiseResult {
  modules: { source: string }[];
  summary: { violations: Violation[] };
}

/** Runs the cruiser (a child process, as `npx depcruise` would) on `cwd`'s src/ with the real config. */
async function cruise(cwd: string): Promise<CruiseResult> {
  const run = promisify(execFile);
  // It exits non-zero when it finds violations; the JSON on stdout is the result either way.
  const { stdout } = await run(process.execPath, [CRUISER, 'src', '--config', CONFIG, '--output-type', 'json'], { cwd, maxBuffer: 64 << 20 }).catch(
    (err: { stdout?: string; stderr?: string }) => {
      if (!err.stdout) throw new Error(`dependency-cruiser failed: ${err.stderr ?? String(err)}`);
      return { stdout: err.stdout };
    },
  );
  return JSON.parse(stdout) as CruiseResult;
}

/** Modules of the cruised project itself (the result also lists node: builtins and packages). */
const ownModules = (r: CruiseResult) => r.modules.filter((m) => m.source.startsWith('src/')).length;

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

async function countTs(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).length;
}

/** A throwaway project: the repository's tsconfig and the given files under src/. */
async function plant(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'evalog-layers-'));
  await copyFile(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, 'src', path)), { recursive: true });
    await writeFile(join(dir, 'src', path), text);
  }
  return dir;
}

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const dir = await plant(files);
  try {
    const result = await cruise(dir);
    expect(ownModules(result), 'every planted module is parsed').to.equal(Object.keys(files).length);
    return result.summary.violations.map(describeViolation);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('layers (dependency-cruiser with .dependency-cruiser.cjs)', function () {
  this.timeout(120_000);

  it('src/ has no import against the layer order and no module or folder cycle', async () => {
    const result = await cruise(ROOT);
    // A parser that cannot read TypeScript cruises nothing and finds nothing: every file must be seen.
    expect(ownModules(result)).to.equal(await countTs(join(ROOT, 'src')));
    const found = result.summary.violations.map(describeViolation);
    expect(found, `violations:\n  ${found.join('\n  ')}\n`).to.deep.equal([]);
  });

  it('fails on a planted upward import (a core module importing the harness)', async () => {
    const found = await violationsOf({
      'core/ids.ts': "import { journal } from '../harness/journal.js';\nexport const id = journal;\n",
      'harness/journal.ts': 'export const journal = 1;\n',
    });
    expect(found).to.deep.equal(['layer-core: src/core/ids.ts → src/harness/journal.ts']);
  });

  it('fails when a module below the app imports the registry', async () => {
    const found = await violationsOf({
      'projections/outputs.ts': "import type { SUITES } from '../app/registry.js';\nexport type S = typeof SUITES;\n",
      'app/registry.ts': 'export const SUITES = {};\n',
    });
    expect(found).to.deep.equal(['layer-projections: src/projections/outputs.ts → src/app/registry.ts']);
  });

  it('fails on a planted module cycle', async () => {
    const found = await violationsOf({
      'harness/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'harness/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    expect(found).to.have.lengthOf.at.least(1);
    expect(
      found.every((v) => /^no-circular: src\/harness\/[ab]\.ts → src\/harness\/[ab]\.ts \(cycle /.test(v)),
      found.join('\n'),
    ).to.equal(true);
  });

  it('fails on a planted folder cycle that has no module cycle', async () => {
    const found = await violationsOf({
      'harness/run/plan.ts': "import { step } from '../session/step.js';\nexport const plan = step;\n",
      'harness/run/ids.ts': 'export const ids = 1;\n',
      'harness/session/step.ts': 'export const step = 1;\n',
      'harness/session/uses.ts': "import { ids } from '../run/ids.js';\nexport const uses = ids;\n",
    });
    expect(found.filter((v) => v.startsWith('no-folder-cycles:'))).to.have.lengthOf.at.least(1);
    expect(
      found.every((v) => v.startsWith('no-folder-cycles:')),
      found.join('\n'),
    ).to.equal(true);
  });

  it('fails on a folder outside the layer order', async () => {
    const found = await violationsOf({ 'misc/helper.ts': "import { x } from '../core/x.js';\nexport const h = x;\n", 'core/x.ts': 'export const x = 1;\n' });
    expect(found).to.deep.equal(['no-unknown-layer: src/misc/helper.ts → src/core/x.ts']);
  });
});

// The house rule (docs/architecture.md, "Layers"): layers import one way and nothing imports itself
// in a cycle, at any folder depth; the suite plugins (packages/) see only the public API, and src/
// sees them only through the registry's list. dependency-cruiser runs with the repository's own
// .dependency-cruiser.cjs, on src/ and packages/ and on small planted trees, so a rule that stopped
// biting would fail here too.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: Violation[] };
}

/** The two sides the cruiser runs on, and what each does not follow into (the config's header says why apart). */
const SIDES = {
  src: '^(node_modules|packages)/',
  packages: '^(node_modules|src|test)/',
} as const;
type Side = keyof typeof SIDES;

/** Runs the cruiser (a child process, as `npx depcruise` would) on `cwd`'s src/ or packages/ with the real config. */
async function cruise(cwd: string, side: Side): Promise<CruiseResult> {
  const run = promisify(execFile);
  // It exits non-zero when it finds violations; the JSON on stdout is the result either way.
  const args = [CRUISER, side, '--config', CONFIG, '--do-not-follow', SIDES[side], '--output-type', 'json'];
  const { stdout } = await run(process.execPath, args, { cwd, maxBuffer: 64 << 20 }).catch((err: { stdout?: string; stderr?: string }) => {
    if (!err.stdout) throw new Error(`dependency-cruiser failed: ${err.stderr ?? String(err)}`);
    return { stdout: err.stdout };
  });
  return JSON.parse(stdout) as CruiseResult;
}

/** TypeScript modules of the cruised side itself (the result also lists what they import: builtins, npm packages, the other side). */
const ownModules = (r: CruiseResult, side: Side) => r.modules.filter((m) => m.source.startsWith(`${side}/`) && m.source.endsWith('.ts')).length;

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

/**
 * Folder cycles at any depth, in src/ and in packages/, which dependency-cruiser's folder scope does
 * not see between a folder and its own subfolders (src/harness/launch.ts → src/harness/run/ →
 * src/harness/env.ts passes it).
 * Each module belongs to the folder it sits in; a folder's index.ts is left out, because it is the
 * folder's face (it names the public exports of the folder and its subfolders), not a room in it, and
 * so is a plugin's plugin.ts (packages/<p>/src/plugin.ts), its face to the registry: it gathers the
 * package's suites, CLI parts and players from its subfolders as an index.ts names them.
 * Returns each cycle's folders, sorted, with one import per edge as the evidence.
 */
function folderCycles(result: CruiseResult): string[] {
  const folderOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
  const own = (p: string) => p.startsWith('src/') || p.startsWith('packages/');
  const face = (p: string) => p.endsWith('/index.ts') || /^packages\/[^/]+\/src\/plugin\.ts$/.test(p);
  const edges = new Map<string, Map<string, string>>();
  for (const m of [...result.modules].sort((a, b) => a.source.localeCompare(b.source))) {
    if (!own(m.source) || face(m.source)) continue;
    const from = folderOf(m.source);
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (!own(d.resolved) || to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      edges.set(from, out);
      if (!out.has(to)) out.set(to, `${m.source} → ${d.resolved}`);
    }
  }
  // Tarjan's strongly connected components over the folder graph.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length < 2) return;
    component.sort();
    const evidence = component.flatMap((a) => [...(edges.get(a) ?? [])].filter(([b]) => component.includes(b)).map(([, imp]) => imp));
    found.push(`folder cycle ${component.join(' ⇄ ')} (${evidence.join('; ')})`);
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

async function countTs(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).length;
}

/** Both sides' violations and folder cycles, after checking that the cruiser parsed every module of each. */
async function cruiseAll(dir: string, expected: (side: Side) => Promise<number>): Promise<string[]> {
  const found: string[] = [];
  for (const side of Object.keys(SIDES) as Side[]) {
    if (!existsSync(join(dir, side))) continue;
    const result = await cruise(dir, side);
    // A parser that cannot read TypeScript cruises nothing and finds nothing: every file must be seen.
    expect(ownModules(result, side), `every module of ${side}/ is parsed`).to.equal(await expected(side));
    found.push(...result.summary.violations.map(describeViolation), ...folderCycles(result));
  }
  return found;
}

/**
 * A throwaway project: the repository's tsconfig (its paths name 'evalog' and the plugins), its
 * node_modules (npm packages resolve as in the repository) and the given files, by path from the root.
 */
async function plant(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'evalog-layers-'));
  await copyFile(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

async function violationsOf(files: Record<string, string>): Promise<string[]> {
  const dir = await plant(files);
  try {
    return await cruiseAll(dir, async (side) => Object.keys(files).filter((f) => f.startsWith(`${side}/`) && f.endsWith('.ts')).length);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('layers (dependency-cruiser with .dependency-cruiser.cjs)', function () {
  this.timeout(120_000);

  it('src/ and packages/ have no import against the layer order or the plugin boundary, and no module or folder cycle', async () => {
    const found = await cruiseAll(ROOT, (side) => countTs(join(ROOT, side)));
    expect(found, `violations:\n  ${found.join('\n  ')}\n`).to.deep.equal([]);
  });

  it('cites a document the repository has: docs/architecture.md, with the layers and the harness rooms', async () => {
    const doc = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    expect(doc).to.match(/^## Layers$/m);
    expect(doc).to.match(/^### The harness's rooms$/m);
    expect(doc).to.match(/^## Suite plugins$/m);
    expect(await readFile(CONFIG, 'utf8')).to.contain('docs/architecture.md');
  });

  it('fails on a planted upward import (a core module importing the harness)', async () => {
    const found = await violationsOf({
      'src/core/ids.ts': "import { journal } from '../harness/journal.js';\nexport const id = journal;\n",
      'src/harness/journal.ts': 'export const journal = 1;\n',
    });
    expect(found).to.deep.equal(['layer-core: src/core/ids.ts → src/harness/journal.ts']);
  });

  it('fails when a module below the app imports the registry', async () => {
    const found = await violationsOf({
      'src/projections/outputs.ts': "import type { SUITES } from '../app/registry.js';\nexport type S = typeof SUITES;\n",
      'src/app/registry.ts': 'export const SUITES = {};\n',
    });
    expect(found).to.deep.equal(['layer-projections: src/projections/outputs.ts → src/app/registry.ts']);
  });

  it('fails on a planted module cycle', async () => {
    const found = await violationsOf({
      'src/harness/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'src/harness/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    expect(found).to.have.lengthOf.at.least(1);
    expect(
      found.every((v) => /^no-circular: src\/harness\/[ab]\.ts → src\/harness\/[ab]\.ts \(cycle /.test(v)),
      found.join('\n'),
    ).to.equal(true);
  });

  it('fails on a planted folder cycle that has no module cycle', async () => {
    const found = await violationsOf({
      'src/harness/run/plan.ts': "import { step } from '../session/step.js';\nexport const plan = step;\n",
      'src/harness/run/ids.ts': 'export const ids = 1;\n',
      'src/harness/session/step.ts': 'export const step = 1;\n',
      'src/harness/session/uses.ts': "import { ids } from '../run/ids.js';\nexport const uses = ids;\n",
    });
    expect(found.filter((v) => v.startsWith('no-folder-cycles:'))).to.have.lengthOf.at.least(1);
    expect(
      found.every((v) => v.startsWith('no-folder-cycles:') || v.startsWith('folder cycle src/harness/run ⇄ src/harness/session ')),
      found.join('\n'),
    ).to.equal(true);
  });

  it('fails on a planted cycle between a folder and its own subfolder', async () => {
    const found = await violationsOf({
      'src/harness/launch.ts': "import { machine } from './run/machine.js';\nexport const launch = machine;\n",
      'src/harness/env.ts': 'export const env = 1;\n',
      'src/harness/run/machine.ts': "import { env } from '../env.js';\nexport const machine = env;\n",
    });
    expect(found).to.deep.equal([
      'folder cycle src/harness ⇄ src/harness/run (src/harness/launch.ts → src/harness/run/machine.ts; src/harness/run/machine.ts → src/harness/env.ts)',
    ]);
  });

  it('fails on a planted cycle between two nested folders of different depth', async () => {
    const found = await violationsOf({
      'src/harness/external/gateway.ts': "import { parse } from './protocols/parse.js';\nexport const gateway = parse;\n",
      'src/harness/external/types.ts': 'export const wire = 1;\n',
      'src/harness/external/protocols/parse.ts': "import { wire } from '../types.js';\nexport const parse = wire;\n",
    });
    expect(found).to.have.lengthOf(1);
    expect(found[0]).to.match(/^folder cycle src\/harness\/external ⇄ src\/harness\/external\/protocols /);
  });

  it("passes a folder's index.ts that names its subfolders' exports (a face, not a room)", async () => {
    const found = await violationsOf({
      'src/harness/index.ts': "export { machine } from './run/machine.js';\nexport { env } from './kernel/env.js';\n",
      'src/harness/kernel/env.ts': 'export const env = 1;\n',
      'src/harness/run/machine.ts': "import { env } from '../kernel/env.js';\nexport const machine = env;\n",
    });
    expect(found).to.deep.equal([]);
  });

  it('fails on a folder outside the layer order', async () => {
    const found = await violationsOf({
      'src/misc/helper.ts': "import { x } from '../core/x.js';\nexport const h = x;\n",
      'src/core/x.ts': 'export const x = 1;\n',
    });
    expect(found).to.deep.equal(['no-unknown-layer: src/misc/helper.ts → src/core/x.ts']);
  });

  /** The public API over the app, whose plugin list loads a plugin lazily: the loop the real tree has. */
  const ENGINE = {
    'src/api/index.ts': "export { INSTALLED } from '../app/plugins.js';\nexport const definePlugin = <T>(p: T) => p;\n",
    'src/api/testing/index.ts': 'export const runScripted = 1;\n',
    'src/app/plugins.ts': "export const INSTALLED = [async () => (await import('@evalog/suite-p')).default];\n",
  };

  it('passes a plugin that imports its own package, the public API, builtins and npm packages, loaded lazily by the plugin list', async () => {
    const found = await violationsOf({
      ...ENGINE,
      'packages/suite-p/src/index.ts': "export { default } from './plugin.js';\n",
      // The plugin's face gathers its parts from a subfolder that imports the folder above: no folder cycle.
      'packages/suite-p/src/cli/index.ts': "import { config } from '../config.js';\nexport const cli = config;\n",
      'packages/suite-p/src/config.ts': 'export const config = 1;\n',
      'packages/suite-p/src/plugin.ts': [
        "import { definePlugin } from 'evalog';",
        "import { cli } from './cli/index.js';",
        "import { runScripted } from 'evalog/testing';",
        "import { readFileSync } from 'node:fs';",
        "import { z } from 'zod';",
        "import cells from '../manifests/cells.json' with { type: 'json' };",
        'export default definePlugin({ cli, runScripted, readFileSync, z, cells });',
        '',
      ].join('\n'),
      'packages/suite-p/manifests/cells.json': '{}\n',
    });
    expect(found).to.deep.equal([]);
  });

  it('fails when a module of src/ other than the plugin list imports a plugin, lazily or not', async () => {
    const found = await violationsOf({
      ...ENGINE,
      'src/harness/x.ts': "export const x = () => import('@evalog/suite-p');\n",
      'src/harness/y.ts': "import { y as p } from '../../packages/suite-p/src/y.js';\nexport const y = p;\n",
      'packages/suite-p/src/index.ts': 'export default 1;\n',
      'packages/suite-p/src/y.ts': 'export const y = 1;\n',
    });
    expect(found.sort()).to.deep.equal([
      'src-not-to-packages: src/harness/x.ts → packages/suite-p/src/index.ts',
      'src-not-to-packages: src/harness/y.ts → packages/suite-p/src/y.ts',
    ]);
  });

  it('fails when the plugin list imports a plugin eagerly, or past its entry', async () => {
    const found = await violationsOf({
      'src/app/plugins.ts': "import p from '@evalog/suite-p';\nexport const INSTALLED = [p, () => import('../../packages/suite-p/src/y.js')];\n",
      'packages/suite-p/src/index.ts': 'export default 1;\n',
      'packages/suite-p/src/y.ts': 'export const y = 1;\n',
    });
    expect(found.sort()).to.deep.equal([
      'plugins-by-entry: src/app/plugins.ts → packages/suite-p/src/y.ts',
      'plugins-load-lazily: src/app/plugins.ts → packages/suite-p/src/index.ts',
    ]);
  });

  it("fails when a plugin imports evalog's modules past the public API, the tests, or another plugin", async () => {
    const found = await violationsOf({
      ...ENGINE,
      'src/core/ids.ts': 'export const id = 1;\n',
      'packages/suite-p/src/index.ts': "import { id } from '../../../src/core/ids.js';\nexport default id;\n",
      'packages/suite-p/src/other.ts': "import q from '@evalog/suite-q';\nimport { cli } from '../../../test/support/cli.js';\nexport const o = [q, cli];\n",
      'packages/suite-q/src/index.ts': 'export default 1;\n',
      'test/support/cli.ts': 'export const cli = 1;\n',
    });
    expect(found.sort()).to.deep.equal([
      'plugin-public-api-only: packages/suite-p/src/index.ts → src/core/ids.ts',
      'plugin-public-api-only: packages/suite-p/src/other.ts → packages/suite-q/src/index.ts',
      'plugin-public-api-only: packages/suite-p/src/other.ts → test/support/cli.ts',
    ]);
  });

  it('fails on a planted module cycle and a folder cycle inside a plugin', async () => {
    const found = await violationsOf({
      'packages/suite-p/src/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'packages/suite-p/src/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
      'packages/suite-p/src/suite.ts': "import { grade } from './cli/grade.js';\nexport const suite = grade;\n",
      'packages/suite-p/src/config.ts': 'export const config = 1;\n',
      'packages/suite-p/src/cli/grade.ts': "import { config } from '../config.js';\nexport const grade = config;\n",
    });
    expect(found.filter((v) => v.startsWith('no-circular:'))).to.have.lengthOf.at.least(1);
    expect(
      found.every(
        (v) =>
          /^no-circular: packages\/suite-p\/src\/[ab]\.ts → packages\/suite-p\/src\/[ab]\.ts \(cycle /.test(v) ||
          v.startsWith('folder cycle packages/suite-p/src ⇄ packages/suite-p/src/cli '),
      ),
      found.join('\n'),
    ).to.equal(true);
    expect(found.filter((v) => v.startsWith('folder cycle '))).to.have.lengthOf(1);
  });
});

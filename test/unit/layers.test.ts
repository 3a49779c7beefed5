// The house rule (docs/architecture.md, "Layers"): layers import one way and nothing imports itself
// in a cycle, at any folder depth. dependency-cruiser runs with the repository's own .dependency-cruiser.cjs, on src/ and on
// small planted trees, so a rule that stopped biting would fail here too.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * Folder cycles at any depth, which dependency-cruiser's folder scope does not see between a folder
 * and its own subfolders (src/harness/launch.ts → src/harness/run/ → src/harness/env.ts passes it).
 * Each module belongs to the folder it sits in; a folder's index.ts is left out, because it is the
 * folder's face (it names the public exports of the folder and its subfolders), not a room in it.
 * Returns each cycle's folders, sorted, with one import per edge as the evidence.
 */
function folderCycles(result: CruiseResult): string[] {
  const folderOf = (p: string) => p.slice(0, p.lastIndexOf('/'));
  const edges = new Map<string, Map<string, string>>();
  for (const m of [...result.modules].sort((a, b) => a.source.localeCompare(b.source))) {
    if (!m.source.startsWith('src/') || m.source.endsWith('/index.ts')) continue;
    const from = folderOf(m.source);
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (!d.resolved.startsWith('src/') || to === from) continue;
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
    return [...result.summary.violations.map(describeViolation), ...folderCycles(result)];
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
    const found = [...result.summary.violations.map(describeViolation), ...folderCycles(result)];
    expect(found, `violations:\n  ${found.join('\n  ')}\n`).to.deep.equal([]);
  });

  it('cites a document the repository has: docs/architecture.md, with the layers and the harness rooms', async () => {
    const doc = await readFile(join(ROOT, 'docs/architecture.md'), 'utf8');
    expect(doc).to.match(/^## Layers$/m);
    expect(doc).to.match(/^### The harness's rooms$/m);
    expect(await readFile(CONFIG, 'utf8')).to.contain('docs/architecture.md');
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
      found.every((v) => v.startsWith('no-folder-cycles:') || v.startsWith('folder cycle src/harness/run ⇄ src/harness/session ')),
      found.join('\n'),
    ).to.equal(true);
  });

  it('fails on a planted cycle between a folder and its own subfolder', async () => {
    const found = await violationsOf({
      'harness/launch.ts': "import { machine } from './run/machine.js';\nexport const launch = machine;\n",
      'harness/env.ts': 'export const env = 1;\n',
      'harness/run/machine.ts': "import { env } from '../env.js';\nexport const machine = env;\n",
    });
    expect(found).to.deep.equal([
      'folder cycle src/harness ⇄ src/harness/run (src/harness/launch.ts → src/harness/run/machine.ts; src/harness/run/machine.ts → src/harness/env.ts)',
    ]);
  });

  it('fails on a planted cycle between two nested folders of different depth', async () => {
    const found = await violationsOf({
      'harness/external/gateway.ts': "import { parse } from './protocols/parse.js';\nexport const gateway = parse;\n",
      'harness/external/types.ts': 'export const wire = 1;\n',
      'harness/external/protocols/parse.ts': "import { wire } from '../types.js';\nexport const parse = wire;\n",
    });
    expect(found).to.have.lengthOf(1);
    expect(found[0]).to.match(/^folder cycle src\/harness\/external ⇄ src\/harness\/external\/protocols /);
  });

  it("passes a folder's index.ts that names its subfolders' exports (a face, not a room)", async () => {
    const found = await violationsOf({
      'harness/index.ts': "export { machine } from './run/machine.js';\nexport { env } from './kernel/env.js';\n",
      'harness/kernel/env.ts': 'export const env = 1;\n',
      'harness/run/machine.ts': "import { env } from '../kernel/env.js';\nexport const machine = env;\n",
    });
    expect(found).to.deep.equal([]);
  });

  it('fails on a folder outside the layer order', async () => {
    const found = await violationsOf({ 'misc/helper.ts': "import { x } from '../core/x.js';\nexport const h = x;\n", 'core/x.ts': 'export const x = 1;\n' });
    expect(found).to.deep.equal(['no-unknown-layer: src/misc/helper.ts → src/core/x.ts']);
  });
});

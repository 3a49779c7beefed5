// evalog compiled to plain JavaScript, as an installed evalog runs from dist/: esbuild transpiles
// each TypeScript file of the chosen folders (no bundling, no type check: tsc does that) into
// OUT/<folder>/**.js, at the same depth as the sources, because modules find manifests/, viewer/
// and package.json relative to their own URL; those, node_modules/ and packages/ are symlinked
// beside them. As in dist/, the per-file src/ cannot load the suite plugins (src/app/plugins.ts
// imports them by package name): the CLI bundle beside it holds them.
// The tests' child processes and the benchmarks run evalog from such a tree: through tsx, each
// process would compile the sources again in its loader (about 1.5 s and 60 MB a process here).
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSourceHash } from '../../scripts/source-hash.js';

/** The project root (the folder holding package.json). */
export const PROJECT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What the compiled modules read relative to their own URL, and the packages they import; and
 * packages/, whose plugins the bundle holds but whose manifests it finds beside their sources
 * (OUT/bundle/ → OUT/packages/suite-<S>/src/, as dist/bundle/ → packages/ in an installed evalog).
 */
const LINKED = ['package.json', 'manifests', 'viewer', 'node_modules', 'packages'];

/** The name of the CLI entry in a compiled tree (`node OUT/evalog-entry.mjs run …` is `evalog run …`). */
export const ENTRY_NAME = 'evalog-entry.mjs';

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/**
 * Compiles the project's `folders` (e.g. src, bench) into `out`, replacing what an earlier compile
 * left there, and writes the CLI entry; returns the entry's path.
 */
export function compileTree(out: string, folders: readonly string[]): string {
  for (const f of [...folders, 'bundle']) rmSync(join(out, f), { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const link of LINKED) if (!existsSync(join(out, link))) symlinkSync(join(PROJECT, link), join(out, link));
  buildSync({
    entryPoints: folders.flatMap((f) => tsFiles(join(PROJECT, f))),
    outdir: out,
    outbase: PROJECT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'warning',
  });
  // As dist/bundle/ is for bin/evalog.js: the CLI bundled per command (scripts/bundle-cli.ts), its
  // modules' URLs those of the per-file tree beside it. esbuild runs plugins only asynchronously, and
  // this compile is synchronous, so the bundle is made by a child process.
  const bundled = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(PROJECT, 'scripts', 'bundle-cli.ts'), join(out, 'bundle'), join(out, 'src'), join(out, 'packages')],
    {
      cwd: PROJECT,
      encoding: 'utf8',
    },
  );
  if (bundled.status !== 0) throw new Error(`bundling the CLI failed: ${bundled.stderr || bundled.error}`);
  // As `npm run build` does for dist/: the sources' hash for run.json, read instead of hashing src/ at every run.
  if (folders.includes('src')) writeSourceHash(join(out, 'src'));
  const entry = join(out, ENTRY_NAME);
  writeFileSync(entry, "import './bundle/evalog.js';\n");
  return entry;
}

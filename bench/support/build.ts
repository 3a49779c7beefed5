// Compiles src/ and bench/ to plain JavaScript for the benchmarks' child processes, so that what
// they measure (CPU, peak RSS) is evalog as installed (compiled, like dist/), not tsx's on-the-fly
// TypeScript loader (which alone adds about 40 MB of RSS and start-up time).
//
// Layout: <project>/.tmp/bench-js/{src,bench}/**.js (the same depth as src/, because modules find
// manifests/ and package.json relative to their own URL), with symlinks to the project's
// package.json, manifests/ and node_modules/ beside them. .tmp/ is git-ignored.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (the folder holding package.json). */
export const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the compiled tree goes. */
export const BUILD = join(PROJECT, '.tmp', 'bench-js');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/**
 * Compiles the project's src/ and bench/ with esbuild (transpile only, one output file per input)
 * into BUILD; returns the path of the compiled counterpart of a project file.
 */
export async function compileForBench(): Promise<(projectFile: string) => string> {
  const esbuild = await import('esbuild');
  rmSync(join(BUILD, 'src'), { recursive: true, force: true });
  rmSync(join(BUILD, 'bench'), { recursive: true, force: true });
  mkdirSync(BUILD, { recursive: true });
  for (const link of ['package.json', 'manifests', 'node_modules']) {
    if (!existsSync(join(BUILD, link))) symlinkSync(join(PROJECT, link), join(BUILD, link));
  }
  await esbuild.build({
    entryPoints: [...tsFiles(join(PROJECT, 'src')), ...tsFiles(join(PROJECT, 'bench'))],
    outdir: BUILD,
    outbase: PROJECT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    bundle: false,
    logLevel: 'warning',
  });
  // The CLI entry, as bin/evalog.js is for dist/.
  writeFileSync(
    EVALOG_JS,
    [
      "import { main } from './src/cli/main.js';",
      'main(process.argv.slice(2)).then((c) => { process.exitCode = c; }, (e) => { console.error(e?.stack ?? String(e)); process.exitCode = 1; });',
      '',
    ].join('\n'),
  );
  return compiledPath;
}

/** The compiled counterpart of a project file. */
export function compiledPath(projectFile: string): string {
  return join(BUILD, relative(PROJECT, projectFile)).replace(/\.ts$/, '.js');
}

/** The compiled CLI: `node EVALOG_JS run …` is `evalog run …`. */
export const EVALOG_JS = join(BUILD, 'evalog.mjs');

// `npx tsx bench/support/build.ts` compiles and prints the CLI entry (for bench/peer-promptfoo.sh).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await compileForBench();
  process.stdout.write(`${EVALOG_JS}\n`);
}

// Compiles src/ and bench/ to plain JavaScript for the benchmarks' child processes, so that what
// they measure (CPU, peak RSS) is evalog as installed (compiled, like dist/), not tsx's on-the-fly
// TypeScript loader (which alone adds about 40 MB of RSS and start-up time). The tree goes to
// <project>/.tmp/bench-js/ (git-ignored); see test/support/compile.ts for its layout.
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileTree, ENTRY_NAME, PROJECT } from '../../test/support/compile.js';

export { PROJECT };
/** Where the compiled tree goes. */
export const BUILD = join(PROJECT, '.tmp', 'bench-js');

/** Compiles the project's src/ and bench/ into BUILD; returns the path of the compiled counterpart of a project file. */
export async function compileForBench(): Promise<(projectFile: string) => string> {
  // bench/support/build.ts imports test/support/compile.ts, so the compiled bench needs it too, and
  // that imports scripts/source-hash.ts.
  compileTree(BUILD, ['src', 'bench', 'test/support', 'scripts']);
  return compiledPath;
}

/** The compiled counterpart of a project file. */
export function compiledPath(projectFile: string): string {
  return join(BUILD, relative(PROJECT, projectFile)).replace(/\.ts$/, '.js');
}

/** The compiled CLI: `node EVALOG_JS run …` is `evalog run …`. */
export const EVALOG_JS = join(BUILD, ENTRY_NAME);

// `npx tsx bench/support/build.ts` compiles and prints the CLI entry (for bench/peer-promptfoo.sh).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await compileForBench();
  process.stdout.write(`${EVALOG_JS}\n`);
}

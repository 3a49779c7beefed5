// The CLI as a bundle: a few files instead of hundreds of modules. Every evalog process starts by loading the modules its command
// needs: about 580 files for `run` (openai 154, zod 95, evalog's own 300), and Node's module loader
// spends more on finding, reading and linking them than on running them (`run --help`: 0.75 s of
// CPU from the files, about 0.4 s from a bundle; bench/README.md, "startup"). So the launchers run a
// bundle: `npm run build` writes dist/bundle/ beside tsc's per-file dist/ (which the library API
// still uses), and the tests' and benchmarks' compiled tree gets the same bundle
// (test/support/compile.ts). It is split per command, so that what one command needs is all it loads.
//
// Modules find manifests/, viewer/ and package.json relative to their own URL, at different depths;
// inside one bundle they would all share the bundle's URL. Each `import.meta.url` in src/ is
// therefore rewritten to the URL its module has in the per-file tree beside the bundle, computed
// from the bundle's own URL at run time, so the package stays relocatable.
//
//   npx tsx scripts/bundle-cli.ts                writes dist/bundle/ (run by `npm run build`)
//   npx tsx scripts/bundle-cli.ts OUTDIR TREE    another bundle (the compiled tree's, whose
//                                                synchronous compile cannot run esbuild plugins)
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(PROJECT, 'src');
const ENTRY = 'evalog-cli-entry';

// Packages that stay outside the bundle: native addons, tsx (a module loader, which imports a
// suite file at run time), and what src/ never imports but a bundled package names optionally.
const EXTERNAL = ['tsx', 'tsx/*', '@mongodb-js/zstd', 'msgpackr-extract', 'esbuild', 'playwright-core'];

/**
 * Bundles the CLI (src/cli/launch.ts, launched) into `outdir`: its entry `evalog.js`, and one chunk
 * per command and per piece they share, so a command loads only what it needs (`--version` loads no
 * command at all). `tree` is the folder that holds the per-file counterpart of src/ (src/a/b.ts is
 * tree/a/b.js), which must sit in the same place relative to `outdir` wherever the package is.
 */
export async function bundleCli(outdir: string, tree: string): Promise<void> {
  const fromBundle = relative(outdir, tree).split(sep).join('/');
  // Chunks are named by their hash: without emptying the folder, every build's chunks stay beside
  // the next one's (a dev tree had gathered hundreds, which `npm pack` would ship).
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: { evalog: ENTRY },
    outdir,
    bundle: true,
    splitting: true,
    chunkNames: '[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as __evalogRequire } from 'node:module';\nconst require = __evalogRequire(import.meta.url);" },
    logLevel: 'warning',
    plugins: [
      {
        name: 'evalog-cli',
        setup(b) {
          b.onResolve({ filter: new RegExp(`^${ENTRY}$`) }, () => ({ path: ENTRY, namespace: 'evalog-cli' }));
          b.onLoad({ filter: /.*/, namespace: 'evalog-cli' }, () => ({
            contents: "import { launch } from './cli/launch.ts';\nlaunch();\n",
            resolveDir: SRC,
            loader: 'ts',
          }));
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (!args.path.startsWith(SRC + sep)) return undefined;
            const own = `./${posix.join(fromBundle, relative(SRC, args.path).split(sep).join('/').replace(/\.ts$/, '.js'))}`;
            const text = await readFile(args.path, 'utf8');
            return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'ts' };
          });
        },
      },
    ],
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [outdir, tree] = process.argv.slice(2);
  const dist = join(PROJECT, 'dist');
  await bundleCli(outdir ?? join(dist, 'bundle'), tree ?? dist);
}

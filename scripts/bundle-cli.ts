// The CLI as a bundle: a few files instead of hundreds of modules. Every evalog process starts by loading the modules its command
// needs: about 580 files for `run` (openai 154, zod 95, evalog's own 300), and Node's module loader
// spends more on finding, reading and linking them than on running them (`run --help`: 0.75 s of
// CPU from the files, about 0.4 s from a bundle; bench/README.md, "startup"). So the launchers run a
// bundle: `npm run build` writes dist/bundle/ beside tsc's per-file dist/ (which the library API
// still uses), and the tests' and benchmarks' compiled tree gets the same bundle
// (test/support/compile.ts). It is split per command, so that what one command needs is all it loads.
//
// The suite plugins (packages/suite-*, which src/app/plugins.ts imports lazily by package name) are
// bundled too, each into chunks of its own that load when the registry first needs the plugin.
// esbuild resolves their names, and their 'evalog' and 'evalog/testing', through tsconfig.json's
// paths, to the same modules of src/ the CLI is made of: one engine in the bundle, not two.
//
// Modules find manifests/, viewer/ and package.json relative to their own URL, at different depths;
// inside one bundle they would all share the bundle's URL. Each `import.meta.url` in src/ is
// therefore rewritten to the URL its module has in the per-file tree beside the bundle, and in
// packages/ to the URL of the module's source (a plugin has no per-file tree: its manifests are
// all it reads beside itself), computed from the bundle's own URL at run time, so the package
// stays relocatable.
//
//   npx tsx scripts/bundle-cli.ts                         writes dist/bundle/ (run by `npm run build`)
//   npx tsx scripts/bundle-cli.ts OUTDIR TREE PACKAGES    another bundle (the compiled tree's, whose
//                                                         synchronous compile cannot run esbuild plugins)
import { build } from 'esbuild';
import { readFile, rm } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(PROJECT, 'src');
const PACKAGES = join(PROJECT, 'packages');
const ENTRY = 'evalog-cli-entry';

// Packages that stay outside the bundle: native addons, tsx (a module loader, which imports a
// suite file at run time), and what src/ never imports but a bundled package names optionally.
const EXTERNAL = ['tsx', 'tsx/*', '@mongodb-js/zstd', 'msgpackr-extract', 'esbuild', 'playwright-core'];

/**
 * Bundles the CLI (src/cli/launch.ts, launched) into `outdir`: its entry `evalog.js`, and one chunk
 * per command, per plugin and per piece they share, so a command loads only what it needs
 * (`--version` loads no command at all). `tree` is the folder that holds the per-file counterpart
 * of src/ (src/a/b.ts is tree/a/b.js), and `packages` the folder whose suite-<S>/ hold the plugins'
 * manifests (packages/suite-<S>/manifests/); both must sit in the same place relative to `outdir`
 * wherever the package is.
 */
export async function bundleCli(outdir: string, tree: string, packages: string): Promise<void> {
  const posixRelative = (from: string, to: string) => relative(from, to).split(sep).join('/');
  const fromBundle = posixRelative(outdir, tree);
  const packagesFromBundle = posixRelative(outdir, packages);
  /** The URL a module had unbundled, relative to the bundle, for its `import.meta.url`; null outside src/ and packages/. */
  const ownUrl = (path: string): string | null => {
    if (path.startsWith(SRC + sep)) return `./${posix.join(fromBundle, posixRelative(SRC, path).replace(/\.ts$/, '.js'))}`;
    if (path.startsWith(PACKAGES + sep)) return `./${posix.join(packagesFromBundle, posixRelative(PACKAGES, path))}`;
    return null;
  };
  // Chunks are named by their hash: without emptying the folder, every build's chunks stay beside
  // the next one's (a dev tree had gathered hundreds, which `npm pack` would ship).
  await rm(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: { evalog: ENTRY },
    outdir,
    absWorkingDir: PROJECT,
    metafile: true,
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
            const own = ownUrl(args.path);
            if (own === null) return undefined;
            const text = await readFile(args.path, 'utf8');
            return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`), loader: 'ts' };
          });
        },
      },
    ],
  });
  // One engine: a plugin's 'evalog' resolved anywhere but src/ (dist/, a linked evalog in
  // node_modules/) would bundle a second copy, whose classes and registry the CLI's are not.
  const strays = Object.keys(metafile.inputs).filter((input) => !/^(src|packages|node_modules)\/|^evalog-cli:/.test(input));
  if (strays.length > 0) throw new SecondEngineError(strays);
}

/** The bundle took modules from outside src/, packages/ and node_modules/ (a second copy of evalog). */
export class SecondEngineError extends Error {
  override name = 'SecondEngineError';
  constructor(readonly inputs: readonly string[]) {
    super(`the CLI bundle would hold modules from outside src/, packages/ and node_modules/ (a second evalog?): ${inputs.slice(0, 5).join(', ')}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [outdir, tree, packages] = process.argv.slice(2);
  const dist = join(PROJECT, 'dist');
  await bundleCli(outdir ?? join(dist, 'bundle'), tree ?? dist, packages ?? PACKAGES);
}

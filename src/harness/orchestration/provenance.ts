import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../../core/canonical.js';
import { gitState, type GitState } from './git-state.js';
import type { SuiteManifests } from '../suite/index.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The file a build writes beside its modules' root (dist/, a compiled tree's src/) with the sha256 of the sources it was built from. */
export const SOURCE_HASH_FILE = 'source.sha256';
const BUILT_SOURCE_HASH = new URL(`../../${SOURCE_HASH_FILE}`, import.meta.url);
const RECORDED_PACKAGES = ['xstate', 'openai', 'zod', 'msgpackr', '@nats-io/jetstream', '@nats-io/transport-node'];

/** Where the code of a run came from: versions, source and manifest hashes, git state. */
// A type alias, not an interface, so it is plain data (`RunStarted.provenance`) without a cast.
export type Provenance = {
  evalog: string;
  node: string;
  packages: Record<string, string | null>;
  source_sha256: string;
  manifests: Record<string, string>;
  /** Revision, dirty (untracked files count) and the hash of the uncommitted diff; null outside a checkout of evalog. */
  git: GitState | null;
  /** The suite plugins loaded for the run, by package name: their versions (absent: none was). */
  plugins?: Record<string, string>;
};

/** A suite plugin as provenance records it (the app's registry lists the loaded ones: the harness does not know plugins). */
export interface PluginVersion {
  /** Its package name. */
  readonly name: string;
  readonly version: string;
}

/**
 * Collects provenance once at run start; recorded in `RunStarted`, so run.json rebuilds from the
 * log. `own`: the run's suite's manifests folder, hashed with evalog's own `manifests/`;
 * `plugins`: the suite plugins loaded, whose versions are recorded.
 */
export function collectProvenance(own?: SuiteManifests, plugins: readonly PluginVersion[] = []): Provenance {
  return {
    evalog: readJson(join(PACKAGE_ROOT, 'package.json'))?.version ?? 'unknown',
    node: process.version,
    packages: Object.fromEntries(RECORDED_PACKAGES.map((p) => [p, readJson(join(PACKAGE_ROOT, 'node_modules', p, 'package.json'))?.version ?? null])),
    source_sha256: sourceHash(),
    manifests: manifestHashes(own),
    git: gitState(PACKAGE_ROOT),
    ...(plugins.length > 0 ? { plugins: Object.fromEntries(plugins.map((p) => [p.name, p.version])) } : {}),
  };
}

/** sha256 of every manifest: evalog's own `manifests/` by relative path, and the suite's own folder's under its key (sorted). */
export function manifestHashes(own?: SuiteManifests): Record<string, string> {
  const all: Record<string, string> = { ...fileHashes(join(PACKAGE_ROOT, 'manifests')) };
  if (own) for (const [path, hash] of Object.entries(fileHashes(fileURLToPath(own.folder)))) all[`${own.key}/${path}`] = hash;
  return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * sourcesHash of the sources that the running code was built from: what the build recorded beside the
 * compiled modules (`npm run build`: dist/source.sha256), so a checkout and the package built from
 * it record the same hash. Only code run from the sources (through tsx) hashes them itself. Hashing
 * a tree at every run held up its start: 20–45 ms for src/, 70–105 ms for an installed dist/ (1832
 * files, the bundle and the type declarations included); an installed evalog's one-case run took
 * 0.77 s instead of 0.63 s (bench/README.md, startup).
 */
function sourceHash(): string {
  let built: string | null = null;
  try {
    built = readFileSync(BUILT_SOURCE_HASH, 'utf8').trim();
  } catch {
    // not a build: running from the sources
  }
  if (built !== null && /^[0-9a-f]{64}$/.test(built)) return built;
  return existing(join(PACKAGE_ROOT, 'src')) ? sourcesHash(PACKAGE_ROOT) : treeHash(join(PACKAGE_ROOT, 'dist'));
}

/**
 * The hash of evalog's sources as a checkout holds them: src/ and the built-in plugins' sources
 * (packages/<p>/src/), which the CLI bundle holds too, so an edit to a study's code changes it.
 * Paths are keyed from the root (`src/…`, `packages/<p>/src/…`), sorted.
 */
export function sourcesHash(root: string): string {
  const folders = ['src', ...walkDirs(join(root, 'packages')).map((p) => `packages/${p}/src`)];
  const parts = folders.flatMap((f) => Object.entries(fileHashes(join(root, f))).map(([p, h]) => `${f}/${p}\u0000${h}`));
  return sha256(parts.sort().join('\n'));
}

function walkDirs(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => statSync(join(dir, name)).isDirectory())
      .sort();
  } catch {
    return [];
  }
}

/** sha256 over the sorted relative paths and contents of a folder. */
export function treeHash(dir: string): string {
  const parts = Object.entries(fileHashes(dir)).map(([p, h]) => `${p}\u0000${h}`);
  return sha256(parts.join('\n'));
}

/** sha256 of every file under a folder, keyed by relative path (sorted). */
export function fileHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of walk(dir).sort()) out[relative(dir, file).split('\\').join('/')] = sha256(readFileSync(file));
  return out;
}

function walk(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

function readJson(path: string): { version?: string } | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as { version?: string };
  } catch {
    return null;
  }
}

function existing(path: string): string | null {
  try {
    statSync(path);
    return path;
  } catch {
    return null;
  }
}

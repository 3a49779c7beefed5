import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '../core/canonical.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDED_PACKAGES = ['xstate', 'openai', 'zod', 'msgpackr', '@nats-io/jetstream', '@nats-io/transport-node'];

/** Where the code of a run came from: versions, source and manifest hashes, git state. */
// A type alias, not an interface, so it is plain data (`RunStarted.provenance`) without a cast.
export type Provenance = {
  evalog: string;
  node: string;
  packages: Record<string, string | null>;
  source_sha256: string;
  manifests: Record<string, string>;
  git: { revision: string; dirty: boolean } | null;
};

/** Collects provenance once at run start; recorded in `RunStarted`, so run.json rebuilds from the log. */
export function collectProvenance(): Provenance {
  return {
    evalog: readJson(join(PACKAGE_ROOT, 'package.json'))?.version ?? 'unknown',
    node: process.version,
    packages: Object.fromEntries(RECORDED_PACKAGES.map((p) => [p, readJson(join(PACKAGE_ROOT, 'node_modules', p, 'package.json'))?.version ?? null])),
    source_sha256: treeHash(existing(join(PACKAGE_ROOT, 'src')) ?? join(PACKAGE_ROOT, 'dist')),
    manifests: fileHashes(join(PACKAGE_ROOT, 'manifests')),
    git: gitState(PACKAGE_ROOT),
  };
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

function gitState(dir: string): Provenance['git'] {
  try {
    const opts = { cwd: dir, encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'] };
    const revision = execFileSync('git', ['rev-parse', 'HEAD'], opts).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], opts).trim().length > 0;
    return { revision, dirty };
  } catch {
    return null; // not a git checkout (e.g. installed from the registry)
  }
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

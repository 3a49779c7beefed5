// The files `evalog run --watch` watches, and their state as the loop compares it. A save is a
// change of bytes, not of times: editors rewrite, rename and touch files, and a file saved as it
// was is no reason to run again. So each file's sha256 is kept, computed again only when its size
// or mtime moved. Which files: the suite file's folder (what it imports and reads sits beside it),
// every file the command line names (--data, --config, …), and every file a finished run's run.json
// records by path and hash (a dataset's data, the suite file). Run folders and the cache are not
// watched: the loop writes them itself.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** What the loop watches (absolute paths). */
export interface WatchSet {
  /** Folders read to their depth (but skipped names), every file in them watched. */
  roots: string[];
  /** Single files, watched wherever they are. */
  files: string[];
  /** Folders never read (run folders, the runs folder, the cache). */
  ignore: string[];
  /**
   * Files never watched, by device and inode: the loop's own stdout and stderr when they are
   * redirected to a file (`evalog run suite.ts --watch > log.txt` beside the suite), which each run
   * writes to and would otherwise start the next.
   */
  ignoreFiles?: readonly { dev: number; ino: number }[];
}

/** One file's state: what tells a save (its bytes' hash) and what tells when to hash again. */
export interface FileState {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** The watched files' states by absolute path (a file that is gone is absent), and the folders they are in. */
export interface Snapshot {
  files: Map<string, FileState>;
  /** Folders holding watched files, sorted: where fs.watch listens. */
  dirs: string[];
  /** True when the roots held more than MAX_FILES files: only the first were watched. */
  truncated: boolean;
}

/** Files of the roots watched at most (a suite beside a whole project would else be hashed whole). */
export const MAX_FILES = 2000;
/** Folder depth below a root read at most. */
export const MAX_DEPTH = 6;
// Dependencies and version control are no part of a suite's inputs; names starting with "." (the
// default cache, editors' swap files, .git) neither.
const SKIPPED = new Set(['node_modules']);
const skippedName = (name: string): boolean => name.startsWith('.') || SKIPPED.has(name) || name.endsWith('~');

const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** An empty set. */
export const emptySet = (): WatchSet => ({ roots: [], files: [], ignore: [] });

/** The set with more single files (absolute; those already watched are not added twice). */
export function withFiles(set: WatchSet, files: readonly string[]): WatchSet {
  const known = new Set(set.files);
  const more = files.filter((f) => !known.has(f) && !set.ignore.some((i) => inside(f, i)));
  return more.length === 0 ? set : { ...set, files: [...set.files, ...more].sort() };
}

/** Every `{ path, sha256 }` that run.json records (config's data files, the suite file), resolved from `cwd`. */
export function recordedFiles(runJson: unknown, cwd: string): string[] {
  const out = new Set<string>();
  const visit = (v: unknown, depth: number): void => {
    if (depth > 8 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.path === 'string' && typeof o.sha256 === 'string' && o.path !== '') out.add(resolve(cwd, o.path));
    for (const k of Object.keys(o).sort()) if (k !== 'manifests') visit(o[k], depth + 1);
  };
  const run = runJson as { config?: unknown; provenance?: unknown } | null;
  visit(run?.config, 0);
  visit(run?.provenance, 0);
  return [...out].sort();
}

/** The watched files' states now; `previous` saves hashing a file whose size and mtime did not move. */
export async function snapshot(set: WatchSet, previous?: Snapshot): Promise<Snapshot> {
  const files = new Map<string, FileState>();
  const dirs = new Set<string>();
  let budget = MAX_FILES;
  let truncated = false;
  const ignored = (p: string) => set.ignore.some((i) => inside(p, i));
  const take = async (path: string): Promise<void> => {
    if (files.has(path)) return;
    let s: Awaited<ReturnType<typeof stat>>;
    try {
      s = await stat(path);
    } catch {
      return; // gone (or not yet there): absent
    }
    if (!s.isFile() || set.ignoreFiles?.some((f) => f.dev === s.dev && f.ino === s.ino)) return;
    const old = previous?.files.get(path);
    if (old && old.size === s.size && old.mtimeMs === s.mtimeMs) {
      files.set(path, old);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      return; // removed between stat and read: absent, and seen again on the next look
    }
    files.set(path, { size: s.size, mtimeMs: s.mtimeMs, sha256: createHash('sha256').update(bytes).digest('hex') });
  };
  const walk = async (folder: string, depth: number): Promise<void> => {
    let entries: { name: string; isDirectory(): boolean; isFile(): boolean }[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    dirs.add(folder);
    // Sorted, so which files the budget keeps does not depend on the file system's order.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (skippedName(e.name)) continue;
      const path = join(folder, e.name);
      if (ignored(path)) continue;
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
      } else if (e.isFile()) {
        if (budget === 0) {
          truncated = true;
          return;
        }
        budget -= 1;
        await take(path);
      }
    }
  };
  for (const root of set.roots) await walk(root, 0);
  for (const file of set.files) {
    dirs.add(dirname(file));
    await take(file);
  }
  return { files, dirs: [...dirs].sort(), truncated };
}

/** The files whose bytes differ between two snapshots (added, removed or edited), sorted. */
export function changedFiles(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [path, s] of after.files) if (before.files.get(path)?.sha256 !== s.sha256) out.push(path);
  for (const path of before.files.keys()) if (!after.files.has(path)) out.push(path);
  return out.sort();
}

/** A path as the loop's lines show it: relative to the working folder when inside it. */
export function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' || rel.startsWith('..') ? path : rel.split(sep).join('/');
}

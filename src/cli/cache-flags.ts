import { statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { DataOf } from '../events/index.js';
import { folderStore, type ResponseStore } from '../harness/cache/index.js';
import { InputError, type CliIO } from './io.js';

/** The cache folder used when `--cache` names none (in the folder evalog is run from). */
export const DEFAULT_CACHE_DIR = '.evalog-cache';
/** The variable that turns the cache on with its folder, as `--cache=DIR` does. */
export const CACHE_ENV = 'EVALOG_CACHE_DIR';
/** The key of run.json's provenance that records the cache (absent: the run had none). */
export const CACHE_KEY = 'cache';

/** Help lines of the cache flags. */
export const CACHE_HELP = `  --cache [DIR]         answer model calls already made from a response cache, and keep new successful
                        responses in it (default folder ${DEFAULT_CACHE_DIR}; --cache=DIR and ${CACHE_ENV}=DIR do the same)
  --no-cache            no cache, even with ${CACHE_ENV} set`;

/** The cache a command was asked for: its folder, and that folder as run.json records it (relative to the working folder). */
export interface CacheChoice {
  dir: string;
  recorded: string;
}

/**
 * Takes `--cache`, `--cache DIR`, `--cache=DIR` and `--no-cache` out of `args` (node's parseArgs
 * has no flag with an optional value), then reads `EVALOG_CACHE_DIR`. `--cache` takes the next word
 * as its folder unless that word is a flag: users write `--cache DIR` as they write every other
 * flag's value, so the suite or run named before it stays where the usage line puts it. `cache` is null for no cache, undefined when
 * neither a flag nor the variable said anything (resume then keeps what the run recorded).
 */
export function takeCacheFlags(
  command: string,
  args: readonly string[],
  io: Pick<CliIO, 'env' | 'cwd'>,
): { args: string[]; cache: CacheChoice | null | undefined } {
  const rest: string[] = [];
  let given: string | null | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i]!;
    if (a === '--') {
      rest.push(...args.slice(i));
      break;
    }
    if (a === '--cache') {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith('-')) {
        given = next;
        i += 1;
      } else given = DEFAULT_CACHE_DIR;
    } else if (a.startsWith('--cache=')) given = a.slice('--cache='.length);
    else if (a === '--no-cache') given = null;
    else rest.push(a);
  }
  if (given === '') throw new InputError(`evalog ${command}: --cache=DIR needs a folder name (or --cache alone for ${DEFAULT_CACHE_DIR})`);
  const fromEnv = io.env[CACHE_ENV];
  const name = given !== undefined ? given : fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined;
  if (name === undefined || name === null) return { args: rest, cache: name };
  const where = given !== undefined ? '--cache' : CACHE_ENV;
  return { args: rest, cache: cacheAt(command, name, where, io.cwd) };
}

/** The cache a recorded run named, found from the working folder again (resume without a cache flag). */
export function recordedCache(command: string, started: DataOf<'RunStarted'>, cwd: string): CacheChoice | null {
  const rec = started.provenance[CACHE_KEY] as { dir?: unknown } | undefined;
  if (typeof rec?.dir !== 'string') return null;
  return cacheAt(command, rec.dir, 'run.json provenance.cache.dir', cwd);
}

function cacheAt(command: string, name: string, where: string, cwd: string): CacheChoice {
  const dir = resolve(cwd, name);
  let isDir: boolean | null = null;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Not there yet: the first stored response makes it.
  }
  if (isDir === false) throw new InputError(`evalog ${command}: ${where}: ${name} is not a folder`);
  // Recorded relative to the working folder, so no machine's absolute path reaches run.json.
  const rel = relative(cwd, dir);
  return { dir, recorded: isAbsolute(rel) ? name : rel === '' ? '.' : rel };
}

/** The plan with the cache recorded in its provenance (run.json), unchanged without one. */
export function withCacheProvenance(started: DataOf<'RunStarted'>, cache: CacheChoice | null | undefined): DataOf<'RunStarted'> {
  return cache ? { ...started, provenance: { ...started.provenance, [CACHE_KEY]: { dir: cache.recorded } } } : started;
}

/** executeRun's cache option: the folder store, its warnings one line each on stderr. */
export function cacheOption(cache: CacheChoice | null | undefined, io: Pick<CliIO, 'stderr'>): { cache?: ResponseStore } {
  if (!cache) return {};
  return { cache: folderStore(cache.dir, (m) => io.stderr.write(`evalog: warning: ${m}\n`)) };
}

// `evalog run … --watch`: what the loop takes from run's argv before it runs `evalog run` itself.
// run's own flag table is not read here (its suites' flags load with their plugins): the words the
// loop needs (--watch, --out, the cache and output flags) have fixed spellings, and every other word
// is passed on as given, so run's own parse refuses what it refuses, with its own message.
import { basename, extname, join } from 'node:path';
import { CACHE_ENV } from './cache-flags.js';
import { InputError } from './io.js';

/** What the watch loop reads of run's argv. */
export interface WatchArgs {
  /** run's argv without --watch and --out: every run of the loop starts from it. */
  base: string[];
  /** The folder the loop's runs go into: --out DIR, else `runs` (where `evalog run` puts a run by default). */
  parent: string;
  /** The start of each run folder's name: the suite's name, or the suite file's without its extension. */
  stem: string;
  /** Whether the loop adds `--cache` (the user named no cache, --no-cache, nor EVALOG_CACHE_DIR). */
  addCache: boolean;
  /** Why the cache is left off although the user asked for none (null: it is on, or the user chose). */
  cacheOff: string | null;
  json: boolean;
  quiet: boolean;
  help: boolean;
  /** Words that may name a file the run reads: positionals and flag values (files among them are watched). */
  words: string[];
}

// The flags of the loop's own concern; all others are run's, passed on untouched.
const OUT = '--out';

/** Reads the loop's part of run's argv; InputError when --out has no folder. */
export function watchArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): WatchArgs {
  const end = argv.indexOf('--');
  const head = end === -1 ? [...argv] : argv.slice(0, end);
  const tail = end === -1 ? [] : argv.slice(end);
  const base: string[] = [];
  const words: string[] = [];
  let parent: string | null = null;
  let cacheNamed = false;
  let json = false;
  let quiet = false;
  let help = false;
  let workers = false;
  let passThrough = false;
  for (let i = 0; i < head.length; i += 1) {
    const a = head[i]!;
    if (a === '--watch') continue;
    if (a === OUT || a.startsWith(`${OUT}=`)) {
      const value = a === OUT ? head[i + 1] : a.slice(OUT.length + 1);
      if (value === undefined || value === '' || (a === OUT && value.startsWith('-')))
        throw new InputError('evalog run: --out needs a folder (with --watch, the folder the runs of the loop go into)');
      parent = value;
      if (a === OUT) i += 1;
      continue;
    }
    base.push(a);
    if (a === '--cache' || a.startsWith('--cache=') || a === '--no-cache') cacheNamed = true;
    else if (a === '--json') json = true;
    else if (a === '--quiet') quiet = true;
    else if (a === '--help' || a === '-h') help = true;
    else if (a === '--workers' || a.startsWith('--workers=')) workers = workersQueue(a === '--workers' ? head[i + 1] : a.slice('--workers='.length));
    else if (a === '--endpoint-protocols' || a.startsWith('--endpoint-protocols=')) passThrough = true;
    if (!a.startsWith('-')) words.push(a);
    else if (a.startsWith('--') && a.includes('=')) words.push(a.slice(a.indexOf('=') + 1));
  }
  const fromEnv = env[CACHE_ENV];
  const userChose = cacheNamed || (fromEnv !== undefined && fromEnv !== '');
  // run refuses the cache with either (workers call the model themselves; a pass-through
  // endpoint's native requests are not cached): the loop then runs without it rather than not at all.
  const cacheOff = userChose ? null : workers ? 'with --workers the workers call the model' : passThrough ? 'with --endpoint-protocols' : null;
  const first = head[0] !== undefined && !head[0].startsWith('-') ? head[0] : null;
  return {
    base: [...base, ...tail],
    parent: parent ?? 'runs',
    stem: stemOf(first),
    addCache: !userChose && cacheOff === null,
    cacheOff,
    json,
    quiet,
    help,
    words,
  };
}

// `--workers inline` is this process: the cache works there.
const workersQueue = (value: string | undefined): boolean => value !== undefined && value !== 'inline';

/** A run id's characters of the suite word: `./evals/qa.suite.ts` gives `qa-suite`. */
export function stemOf(word: string | null): string {
  if (word === null) return 'watch';
  const name = basename(word, extname(word))
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '');
  return name === '' ? 'watch' : name.slice(0, 64);
}

/** The UTC time a loop started, as run folders name it (`20261207-232000`). */
export function loopStamp(nowMs: number): string {
  return new Date(nowMs).toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/**
 * The folder of the loop's run `n` (from 1): `<parent>/<stem>-<loop start>-<n, 3 digits>`, so a
 * loop's runs sort together and in order, and two loops never share a name within a second's start.
 */
export function loopRunPath(args: Pick<WatchArgs, 'parent' | 'stem'>, stamp: string, n: number): string {
  return join(args.parent, `${args.stem}-${stamp}-${String(n).padStart(3, '0')}`);
}

/** The argv of one run of the loop: run's own words, its folder, and the cache unless the user decided. */
export function runArgv(args: Pick<WatchArgs, 'base' | 'addCache'>, out: string): string[] {
  const end = args.base.indexOf('--');
  const head = end === -1 ? args.base : args.base.slice(0, end);
  const tail = end === -1 ? [] : args.base.slice(end);
  return [...head, '--out', out, ...(args.addCache ? ['--cache'] : []), ...tail];
}

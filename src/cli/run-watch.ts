// `evalog run … --watch`: one run, then a new run on every save of the suite file or its data,
// each `evalog run` as the user would type it (in a new folder of the loop, with the response cache
// on, so the requests a save did not change are answered from the cache and cost nothing). After
// each run the terminal shows the pass rate and the verdicts that flipped against the loop's
// previous run; a run refused for bad input prints its one line and the loop waits for the fix.
// Ctrl-C ends the loop with the last run's exit code (130 when it stopped a run).
import { fstatSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { forgetLoadedSuiteFiles, outputHooksOfRun } from '../app/index.js';
import { UserError } from '../core/errors.js';
import { systemClock } from '../core/clock.js';
import { CompareInputError, sidesOf, type Side } from '../projections/compare/index.js';
import { exists } from '../projections/writer.js';
import { canonicalJson } from '../core/canonical.js';
import { DEFAULT_CACHE_DIR, takeCacheFlags } from './cache-flags.js';
import { EXIT, InputError, type CliIO } from './io.js';
import { loopRunPath, loopStamp, runArgv, watchArgs, type WatchArgs } from './watch-argv.js';
import { emptySet, recordedFiles, shown, snapshot, withFiles, type Snapshot, type WatchSet } from './watch-files.js';
import { reportLines, watchReport, type LoopRun } from './watch-report.js';
import { nextChange, TRIGGER_DEFAULTS, type TriggerOptions } from './watch-trigger.js';

/** How the loop listens (tests shorten the waits). */
export type WatchOptions = Omit<TriggerOptions, 'signal'>;

/** `evalog run … --watch`: `runOnce(argv)` is `evalog run` itself, given the argv of one run of the loop. */
export async function watchRun(
  argv: string[],
  io: CliIO,
  runOnce: (argv: string[]) => Promise<number>,
  options: WatchOptions = TRIGGER_DEFAULTS,
): Promise<number> {
  const args = watchArgs(argv, io.env);
  if (args.help) return runOnce(args.base);
  const say = (line: string) => {
    if (!args.quiet) io.stderr.write(line);
  };
  let set = await firstSet(args, io);
  let since = await snapshot(set);
  if (since.files.size === 0)
    throw new InputError('evalog run: --watch found no file to watch: name a suite file, or a data file with its flag (--data FILE, --config FILE)');
  if (since.truncated) say(`evalog: watch: more than ${since.files.size} files beside the suite: only the first ${since.files.size} are watched\n`);
  say(`evalog: watch: ${since.files.size} file${since.files.size === 1 ? '' : 's'} watched (${describe(set, io.cwd)}); Ctrl-C ends the loop\n`);
  if (args.addCache) say(`evalog: watch: response cache ${DEFAULT_CACHE_DIR} on (requests a save did not change cost nothing; --no-cache turns it off)\n`);
  if (args.cacheOff) say(`evalog: watch: no response cache ${args.cacheOff} (every run calls the model again)\n`);

  const stamp = loopStamp(systemClock.now());
  const trigger: TriggerOptions = {
    ...options,
    ...(io.signal ? { signal: io.signal } : {}),
    onWatchError: (dir, err) => say(`evalog: watch: cannot listen to ${shown(dir, io.cwd)} (${err.message}); polling it instead\n`),
  };
  let last: number = EXIT.ok;
  let previous: LoopRun | null = null;
  let n = 0;
  let slot = 0;
  for (;;) {
    if (io.signal?.aborted) break;
    n += 1;
    // A folder of that name may exist (a loop started in the same second): the next number is taken.
    let out: string;
    do {
      slot += 1;
      out = loopRunPath(args, stamp, slot);
    } while (await exists(resolve(io.cwd, out)));
    set = { ...set, ignore: [...set.ignore, resolve(io.cwd, out)] };
    // Each run imports the suite file again: a module it imports may be what the save changed.
    if (n > 1) forgetLoadedSuiteFiles();
    last = await runCatching(runOnce, runArgv(args, out), io);
    if (io.signal?.aborted) break;
    const result = await readResult(n, out, io.cwd);
    if (result) {
      const report = watchReport(previous, result.run, last);
      io.stdout.write(args.json ? `${canonicalJson({ watch: report })}\n` : `${reportLines(report).join('\n')}\n`);
      if (result.unpaired) say(`evalog: watch: ${result.unpaired}\n`);
      previous = result.run;
      // The files the run recorded (a dataset's data, wherever it is) are watched from now on.
      const grown = withFiles(set, result.files);
      if (grown !== set) {
        const added = grown.files.filter((f) => !set.files.includes(f));
        since = merged(since, await snapshot({ roots: [], files: added, ignore: [] }));
        set = grown;
      }
    }
    say(`evalog: watch: waiting for a save (Ctrl-C ends the loop)\n`);
    const change = await nextChange(set, since, trigger);
    if (!change) break;
    since = change.snap;
    const names = change.changed.map((f) => shown(f, io.cwd));
    say(`evalog: watch: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''} changed: run ${n + 1}\n`);
  }
  say(`evalog: watch: ended after ${n} run${n === 1 ? '' : 's'}; exit ${last}\n`);
  return last;
}

// The suite file's folder (its imports and data sit beside it), and every file the argv names.
async function firstSet(args: WatchArgs, io: CliIO): Promise<WatchSet> {
  const first = args.base[0];
  const roots: string[] = [];
  // A suite file or a promptfoo config: run's first word, when it names a file.
  if (first !== undefined && !first.startsWith('-') && (await isFile(resolve(io.cwd, first)))) roots.push(dirname(resolve(io.cwd, first)));
  const files: string[] = [];
  for (const w of args.words) {
    const path = resolve(io.cwd, w);
    if (await isFile(path)) files.push(path);
  }
  // Never the loop's own writes: its runs folder (when it is not the watched folder or above it) and the cache.
  const ignore: string[] = [];
  const parent = resolve(io.cwd, args.parent);
  if (!roots.some((r) => r === parent || r.startsWith(`${parent}/`))) ignore.push(parent);
  const cache = takeCacheFlags('run', args.addCache ? [...args.base, '--cache'] : args.base, io).cache;
  if (cache) ignore.push(cache.dir);
  return withFiles({ ...emptySet(), roots, ignore, ignoreFiles: redirected(io) }, files);
}

// The files the command's own output goes to, when it is redirected to files (a stream with an fd).
function redirected(io: CliIO): { dev: number; ino: number }[] {
  const out: { dev: number; ino: number }[] = [];
  for (const stream of [io.stdout, io.stderr]) {
    const fd = (stream as { fd?: unknown }).fd;
    if (typeof fd !== 'number') continue;
    try {
      const s = fstatSync(fd);
      if (s.isFile()) out.push({ dev: s.dev, ino: s.ino });
    } catch {
      // Closed or not a file: nothing to leave out.
    }
  }
  return out;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function describe(set: WatchSet, cwd: string): string {
  const parts = [
    ...set.roots.map((r) => `${shown(r, cwd)}/`),
    ...set.files.filter((f) => !set.roots.some((r) => f.startsWith(`${r}/`))).map((f) => shown(f, cwd)),
  ];
  return parts.length > 4 ? `${parts.slice(0, 4).join(', ')} and ${parts.length - 4} more` : parts.join(', ');
}

function merged(a: Snapshot, b: Snapshot): Snapshot {
  return { files: new Map([...a.files, ...b.files]), dirs: [...new Set([...a.dirs, ...b.dirs])].sort(), truncated: a.truncated };
}

/**
 * One run of the loop: its exit code. Bad input (an edit that broke the suite or its data) is the
 * one line `evalog run` prints for it, exit 2, and the loop goes on; so is any other error, with
 * its stack (a bug is worth its trace), since the next save may well fix what the user's code threw.
 */
async function runCatching(runOnce: (argv: string[]) => Promise<number>, argv: string[], io: CliIO): Promise<number> {
  try {
    return await runOnce(argv);
  } catch (err) {
    if (err instanceof UserError) {
      io.stderr.write(`${err.message.startsWith('evalog') ? '' : 'evalog: '}${err.message}\n`);
      return EXIT.badInput;
    }
    io.stderr.write(`evalog: run failed: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
}

/** A finished run of the loop: its sides (one per arm), the files its run.json records, why it pairs nothing (null: it pairs). */
interface Result {
  run: LoopRun;
  files: string[];
  unpaired: string | null;
}

// The run's rows and run.json as it wrote them; null when it wrote none (refused, interrupted).
async function readResult(n: number, out: string, cwd: string): Promise<Result | null> {
  const dir = resolve(cwd, out);
  let rowsText: string;
  let runJson: { run_id?: string; suite?: string; provenance?: Record<string, unknown> };
  try {
    rowsText = await readFile(join(dir, 'rows.jsonl'), 'utf8');
    runJson = JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'));
  } catch {
    return null;
  }
  const rows = rowsText
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const files = recordedFiles(runJson, cwd);
  let sides: Side[] = [];
  let unpaired: string | null = null;
  try {
    // A suite whose rows have their own shape says how they pair, as for `evalog compare`.
    const armJob =
      typeof runJson.suite === 'string'
        ? (await outputHooksOfRun({ suite: runJson.suite, provenance: runJson.provenance ?? {} }, cwd))(runJson.suite)?.report?.armJob
        : undefined;
    sides = sidesOf([{ runId: runJson.run_id ?? out, rows, ...(armJob ? { armJob } : {}) }]);
  } catch (err) {
    if (!(err instanceof CompareInputError) && !(err instanceof UserError)) throw err;
    unpaired = `run ${n}'s verdicts cannot be paired (${err.message.replace(/^evalog compare: /, '')})`;
  }
  return { run: { n, dir: out, sides }, files, unpaired };
}

// The one seam between a command and the suite it runs: a built-in suite's name or a user's suite
// file becomes a suite, the scripted players that play it, and (for a file) the provenance that
// run.json records. Commands that continue a recorded run (resume, replay, workers, rebuild) ask
// here too, and a run whose suite file changed or is gone is refused, naming the file.
import { resolve } from 'node:path';
import { RUN_SCOPE, type DataOf } from '../events/index.js';
import type { EventLog } from '../log/index.js';
import { UserError } from '../core/errors.js';
import { scriptedJudgePlayer } from '../graders/index.js';
import type { DefinedSuite } from '../harness/suite/index.js';
import type { OutputHooksOf } from '../projections/report.js';
import type { Player } from '../providers/scripted/index.js';
import { allSuiteNames, ensureSuite, scriptedPlayers, suiteNamed } from './registry.js';
import { isSuiteFilePath, loadSuiteFile, suiteFileHash, SuiteFileError, type LoadedSuiteFile, type SuiteFileRecord } from './suite-file.js';

/** A suite ready to run: the suite, the players of the scripted model, and its file (null = built in). */
export interface ResolvedSuite {
  suite: DefinedSuite;
  /** Every player the scripted model needs for it (the registry's, with the file's own). */
  players: readonly Player[];
  /** The player the suite file exports (null: none, or a built-in suite). */
  player: Player | null;
  file: SuiteFileRecord | null;
}

/** The key of run.json's provenance that holds the suite file. */
export const SUITE_FILE_KEY = 'suite_file';

/** A name that is neither a built-in suite nor a suite file. */
export class UnknownSuiteNameError extends UserError {
  override name = 'UnknownSuiteNameError';
  constructor(readonly suite: string) {
    super(`unknown suite ${JSON.stringify(suite)} (built in: ${builtInNames().join(', ')}; or give a suite file such as ./my-suite.ts)`);
  }
}

/** The recorded suite file is gone or differs from the one the run started with. */
export class SuiteFileChangedError extends UserError {
  override name = 'SuiteFileChangedError';
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`suite file ${file}: ${message}`);
  }
}

/** Names of the built-in suites (evalog's own and its installed plugins', loaded or not), sorted. */
export function builtInNames(): string[] {
  return allSuiteNames();
}

/**
 * Resolves `evalog run`'s argument: a built-in suite's name (its plugin, if it has one, loaded
 * first; PluginUnavailableError when it cannot be), or a path to a suite file (relative to `cwd`).
 */
export async function resolveSuite(nameOrPath: string, cwd: string): Promise<ResolvedSuite> {
  if (!isSuiteFilePath(nameOrPath)) {
    await ensureSuite(nameOrPath);
    const suite = suiteNamed(nameOrPath);
    if (!suite) throw new UnknownSuiteNameError(nameOrPath);
    return { suite, players: scriptedPlayers(), player: null, file: null };
  }
  return fromFile(await loadSuiteFile(nameOrPath, cwd));
}

function fromFile(loaded: LoadedSuiteFile): ResolvedSuite {
  // Every built-in name is taken, a plugin's too, whether or not that plugin is loaded here.
  if (allSuiteNames().includes(loaded.suite.name)) {
    throw new SuiteFileError(loaded.file.path, `field name: ${JSON.stringify(loaded.suite.name)} is a built-in suite's name; choose another`);
  }
  return { suite: loaded.suite, players: playersWith(loaded.player), player: loaded.player, file: loaded.file };
}

/** The registry's players with user suites' own; the judge stays first (it claims only judge requests). */
export function playersWith(...own: (Player | null)[]): readonly Player[] {
  const players = own.filter((p): p is Player => p !== null);
  const registry = scriptedPlayers();
  if (players.length === 0) return registry;
  return [scriptedJudgePlayer, ...players, ...registry.filter((p) => p !== scriptedJudgePlayer)];
}

/** The `RunStarted` data with the suite file recorded in its provenance (unchanged for a built-in suite). */
export function withSuiteFile(started: DataOf<'RunStarted'>, file: SuiteFileRecord | null): DataOf<'RunStarted'> {
  return file ? { ...started, provenance: { ...started.provenance, [SUITE_FILE_KEY]: { ...file } } } : started;
}

/** The suite file a run recorded, or null (a built-in suite). */
export function recordedSuiteFile(started: Pick<DataOf<'RunStarted'>, 'provenance'>): SuiteFileRecord | null {
  const f = started.provenance[SUITE_FILE_KEY] as Partial<SuiteFileRecord> | undefined;
  return f && typeof f.path === 'string' && typeof f.sha256 === 'string' ? { path: f.path, sha256: f.sha256, report: f.report === true } : null;
}

/**
 * The suite of a recorded run, for resume, replay and workers: the registry's for a built-in suite
 * (its plugin loaded first; undefined when unknown), else the recorded file, resolved against
 * `cwd`, which must hash as it did when the run started (SuiteFileChangedError otherwise).
 */
export async function suiteOfRun(started: Pick<DataOf<'RunStarted'>, 'suite' | 'provenance'>, cwd: string): Promise<ResolvedSuite | undefined> {
  const file = recordedSuiteFile(started);
  if (!file) {
    await ensureSuite(started.suite);
    const suite = suiteNamed(started.suite);
    return suite ? { suite, players: scriptedPlayers(), player: null, file: null } : undefined;
  }
  const now = await suiteFileHash(file.path, cwd).catch((err: unknown) => {
    if (!(err instanceof SuiteFileError)) throw err;
    throw new SuiteFileChangedError(
      file.path,
      `the run's suite file is gone (${err.message.replace(`suite file ${file.path}: `, '')}); it is resolved from the current folder, so run this command where the run was started`,
    );
  });
  if (now !== file.sha256) {
    throw new SuiteFileChangedError(
      file.path,
      `changed since the run started (sha256 ${file.sha256.slice(0, 12)}… recorded in run.json, ${now.slice(0, 12)}… now); restore the file the run started with`,
    );
  }
  const resolved = fromFile(await loadSuiteFile(resolve(cwd, file.path), cwd));
  // Hashed again as loaded: an edit between the check above and the import is caught too.
  if (resolved.file!.sha256 !== file.sha256)
    throw new SuiteFileChangedError(file.path, 'changed while it was being loaded; restore the file the run started with');
  if (resolved.suite.name !== started.suite)
    throw new SuiteFileChangedError(file.path, `exports suite ${JSON.stringify(resolved.suite.name)}, the run is of ${JSON.stringify(started.suite)}`);
  return resolved;
}

/**
 * The output hooks (report, artifact extension) for deriving a run's outputs. A built-in suite's come
 * from the registry; a suite file's from the file only when its suite has its own report (and then
 * the file must be unchanged); a suite file without a report needs no code: the generic rows are used.
 */
export async function outputHooksOfRun(started: Pick<DataOf<'RunStarted'>, 'suite' | 'provenance'> | null, cwd: string): Promise<OutputHooksOf> {
  const file = started ? recordedSuiteFile(started) : null;
  if (started && !file) await ensureSuite(started.suite);
  if (!started || !file) return suiteNamed;
  if (!file.report) return (name) => (name === started.suite ? undefined : suiteNamed(name));
  const own = (await suiteOfRun(started, cwd))!.suite;
  return (name) => (name === started.suite ? own : suiteNamed(name));
}

/** Output hooks of a suite in hand (a run this process started): the suite's own for its name. */
export function outputHooksOf(suite: DefinedSuite): OutputHooksOf {
  return (name) => (name === suite.name ? suite : suiteNamed(name));
}

/**
 * The run's `RunStarted` data (null = the log holds no start of it), read from the run-level events
 * only; the plugin of its suite is loaded, so the registry's lookups find the suite.
 */
export async function startOfRun(log: EventLog, runId: string): Promise<DataOf<'RunStarted'> | null> {
  for await (const e of log.read(runId, { jobId: RUN_SCOPE }))
    if (e.type === 'RunStarted') {
      if (!recordedSuiteFile(e.data)) await ensureSuite(e.data.suite);
      return e.data;
    }
  return null;
}

import type { Player } from '../providers/scripted/index.js';
import { scriptedJudgePlayer } from '../graders/index.js';
import { datasetCli, datasetPlayer, datasetSuite } from '../suites/dataset/index.js';
import { smokePlayer, smokeSuite } from '../suites/smoke/index.js';
import { codingPlayer, codingSuite } from '../suites/coding/index.js';
import { UserError } from '../core/errors.js';
import {
  combinedBinding,
  type DefinedSuite,
  type RunBinding,
  type SuiteCli,
  type SuiteCommand,
  type SuiteLookup,
  type SuitePlugin,
} from '../harness/suite/index.js';
import type { PluginVersion } from '../harness/orchestration/provenance.js';
import { INSTALLED_PLUGINS, type InstalledPlugin } from './plugins.js';

// The composition root's registry: the suites evalog itself holds (smoke, coding, dataset) and
// those of the installed plugins (plugins.ts), their command-line adjuncts (run flags, endpoint
// variables, the binding of recorded runs, their own commands) and the scripted players that play
// them; nothing below imports it. A plugin is loaded only when a command needs one of its suites or
// commands (`ensureSuite`, `loadAllPlugins`): what the lookups below return is what is loaded.

/** Suites of evalog itself, by name. */
const OWN_SUITES: Readonly<Record<string, DefinedSuite>> = {
  smoke: smokeSuite,
  // Tiny repositories: the workspace is the work (hidden tests grade it, its diff is recorded).
  coding: codingSuite,
  // Cases come from the file its config pins (path and sha256), so replay, resume and workers need no binding.
  dataset: datasetSuite(),
};

const OWN_CLI: Readonly<Record<string, SuiteCli>> = { dataset: datasetCli };

/** A plugin that cannot be loaded here (not installed, or this build of evalog cannot import it). */
export class PluginUnavailableError extends UserError {
  override name = 'PluginUnavailableError';
  constructor(
    readonly plugin: string,
    readonly suite: string,
    cause: unknown,
  ) {
    // One line: an import's error may carry a stack or a code frame on the lines below its first.
    const why = String((cause as Error)?.message ?? cause).split('\n')[0];
    super(`suite ${JSON.stringify(suite)} comes from the plugin ${plugin}, which cannot be loaded: ${why}`, { cause });
  }
}

const loaded = new Map<string, SuitePlugin>();
const loading = new Map<string, Promise<SuitePlugin>>();

async function load(p: InstalledPlugin, forSuite: string): Promise<SuitePlugin> {
  let pending = loading.get(p.package);
  if (!pending) {
    pending = p.load().then((plugin) => {
      loaded.set(p.package, plugin);
      return plugin;
    });
    loading.set(p.package, pending);
    pending.catch(() => loading.delete(p.package));
  }
  return pending.catch((err: unknown) => {
    throw new PluginUnavailableError(p.package, forSuite, err);
  });
}

/** The installed plugin that provides a suite name (undefined: none does). */
export const pluginOfSuite = (name: string): InstalledPlugin | undefined => INSTALLED_PLUGINS.find((p) => p.suites.includes(name));

/** Loads the plugin of a suite name, if a plugin provides it (a no-op for evalog's own suites and unknown names). */
export async function ensureSuite(name: string): Promise<void> {
  const p = pluginOfSuite(name);
  if (p && !loaded.has(p.package)) await load(p, name);
}

/**
 * Loads every installed plugin (the commands that read any recorded run, and every suite's flags).
 * Each that can be is loaded even when another cannot; the first that cannot is then thrown.
 */
export async function loadAllPlugins(): Promise<void> {
  const settled = await Promise.allSettled(INSTALLED_PLUGINS.filter((p) => !loaded.has(p.package)).map((p) => load(p, p.suites[0]!)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

// The loaded plugins in the order plugins.ts lists them (not the order they happened to load in).
const loadedPlugins = (): SuitePlugin[] => INSTALLED_PLUGINS.flatMap((p) => loaded.get(p.package) ?? []);

/** The names of every suite, evalog's own and every installed plugin's, loaded or not, sorted. */
export function allSuiteNames(): string[] {
  return [...Object.keys(OWN_SUITES), ...INSTALLED_PLUGINS.flatMap((p) => p.suites)].sort();
}

/** The suite of a name among those loaded (undefined = not one of them): the lookup the app injects below. */
export const suiteNamed: SuiteLookup = (name) => {
  if (Object.hasOwn(OWN_SUITES, name)) return OWN_SUITES[name];
  return loadedPlugins()
    .flatMap((p) => p.suites)
    .find((s) => s.name === name);
};

// The CLI adjuncts suite files bring (a defineEval suite's --model), by suite name: set by the suite-file loader.
const fileClis = new Map<string, SuiteCli>();

/** Sets (or, with null, clears) the CLI adjunct of a suite loaded from a file. */
export function setSuiteFileCli(name: string, cli: SuiteCli | null): void {
  if (cli) fileClis.set(name, cli);
  else fileClis.delete(name);
}

/** The CLI adjunct of each loaded suite that has one, by suite name. */
export function suiteClis(): Readonly<Record<string, SuiteCli>> {
  return Object.assign({}, ...loadedPlugins().map((p) => p.cli ?? {}), Object.fromEntries(fileClis), OWN_CLI);
}

/** The CLI adjunct of a suite (empty when it has none or is not loaded). */
export function suiteCli(name: string): SuiteCli {
  const clis = suiteClis();
  // Own keys only: a suite named like an Object.prototype member has no adjunct.
  return Object.hasOwn(clis, name) ? clis[name]! : {};
}

/**
 * The suites' own commands, listed without loading a plugin: running one loads its plugin and
 * hands over to the command the plugin declares under that name.
 */
export function suiteCommands(): SuiteCommand[] {
  const own = Object.values(OWN_CLI).flatMap((c) => c.commands ?? []);
  const fromPlugins = INSTALLED_PLUGINS.flatMap((p) =>
    p.commands.map(
      (c): SuiteCommand => ({
        name: c.name,
        summary: c.summary,
        load: async (kit) => {
          const plugin = await load(p, p.suites[0]!);
          const command = Object.values(plugin.cli ?? {})
            .flatMap((cli) => cli.commands ?? [])
            .find((d) => d.name === c.name);
          if (!command) throw new Error(`plugin ${p.package} lists the command ${c.name} but does not provide it`);
          return command.load(kit);
        },
      }),
    ),
  );
  return [...fromPlugins, ...own];
}

/** How resume, retry, replay and worker bind a recorded run of any loaded suite to its inputs again (flags, help, lookup). */
export function runBinding(): RunBinding {
  return combinedBinding(Object.values(suiteClis()));
}

/**
 * Players of every loaded suite, for the scripted model. The judge goes first (it claims only
 * requests in the judge format, whose text quotes a case and would otherwise be answered as one);
 * the dataset player goes last: its prompts carry no suite tag, so it answers only what no other
 * player claims.
 */
export function scriptedPlayers(): readonly Player[] {
  return [scriptedJudgePlayer, smokePlayer, codingPlayer, ...loadedPlugins().flatMap((p) => p.players ?? []), datasetPlayer];
}

/** The loaded plugins as run.json's provenance records them: package name and version. */
export function pluginVersions(): PluginVersion[] {
  return loadedPlugins().map((p) => ({ name: p.name, version: p.version }));
}

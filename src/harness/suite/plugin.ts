// A suite plugin: a package that brings suites to evalog, as the built-in studies do
// (packages/suite-*), through the public API alone. The registry lists installed plugins by name
// with what they provide (suite names, command names), so a command loads a plugin only when it
// needs one of its suites or commands: `evalog run dataset` loads none.
import type { Player } from '../../providers/scripted/index.js';
import type { SuiteCli } from './cli.js';
import type { DefinedSuite } from './define.js';

/** What a plugin package exports by default. */
export interface SuitePlugin {
  /** Its package name (e.g. `@evalog/suite-<name>`), as run.json records it. */
  readonly name: string;
  /** Its package version. */
  readonly version: string;
  /** Its suites; every name is unique across evalog and its plugins. */
  readonly suites: readonly DefinedSuite[];
  /** The CLI adjunct of each suite that has one, by suite name. */
  readonly cli?: Readonly<Record<string, SuiteCli>>;
  /** The scripted model's players of its suites (tried after the judge and the built-in suites' players). */
  readonly players?: readonly Player[];
}

/** Declares a plugin; the identity function, for the compiler's check of the shape. */
export function definePlugin(plugin: SuitePlugin): SuitePlugin {
  return plugin;
}

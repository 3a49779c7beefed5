// The installed suite plugins: the one file of src/ that names the built-in studies, and the only
// one the dependency rule lets import packages/ (each by its package name, lazily). For each, what
// it provides, so that a command can tell which plugin to load without loading any:
// test/unit/plugins-installed.test.ts holds these lists to what each plugin exports.
import type { SuitePlugin } from '../harness/suite/index.js';

/** An installed plugin as the registry knows it before loading it. */
export interface InstalledPlugin {
  /** Its package name. */
  readonly package: string;
  /** The names of the suites it provides. */
  readonly suites: readonly string[];
  /** Its own commands, as `evalog --help` lists them. */
  readonly commands: readonly { readonly name: string; readonly summary: string }[];
  /** Imports it. */
  load(): Promise<SuitePlugin>;
}

/** The installed plugins, in the order their scripted players are tried. */
export const INSTALLED_PLUGINS: readonly InstalledPlugin[] = [
  {
    package: '@evalog/suite-context-snapshot',
    suites: ['context-snapshot'],
    commands: [
      { name: 'summarize', summary: 'recompute a context-snapshot summary from rows.jsonl' },
      { name: 'context-snapshot', summary: 'offline tools of the context-snapshot suite: grade one artifact file' },
    ],
    load: async () => (await import('@evalog/suite-context-snapshot')).default,
  },
  {
    package: '@evalog/suite-memory-eviction',
    suites: ['memory-eviction', 'memory-eviction-policy', 'memory-eviction-grade'],
    commands: [{ name: 'memory-eviction', summary: 'the memory-eviction evaluation: validate, run-policy, run-qa, grade-qa, stats' }],
    load: async () => (await import('@evalog/suite-memory-eviction')).default,
  },
  {
    package: '@evalog/suite-context-engineering',
    suites: ['context-engineering'],
    commands: [],
    load: async () => (await import('@evalog/suite-context-engineering')).default,
  },
];

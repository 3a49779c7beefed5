// A suite's command-line adjunct: its own `evalog run` flags, its endpoint variables, how a recorded
// run of it is bound back to inputs outside its log, and its own commands. These are the CLI's
// concerns, not the suite's, so they live beside the suite and the app registers both; the generic
// commands read only this contract.
import type { CliIO, Command } from './command.js';
import type { CliKit } from './cli-kit.js';
import type { DefinedSuite } from './define.js';

/** A flag of `evalog run`, as node's parseArgs takes it. */
export interface RunFlagOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

/** A suite's own flags of `evalog run` and how they become config. */
export interface RunFlags {
  /** parseArgs options; a suite that defines `model` takes over --model (e.g. repeatable, for arms). */
  options: Readonly<Record<string, RunFlagOption>>;
  /** Help lines for the flags. */
  help: string;
  /**
   * Turns the parsed flags into config overrides (paths resolved against `cwd`; input files read and
   * validated here, before anything is written) and the model id the endpoint needs, if a flag gave one.
   */
  apply(values: Readonly<Record<string, unknown>>, cwd: string): AppliedRunFlags;
}

/** What a suite's flags gave: config overrides, the endpoint's model id, and lines to print as the run starts. */
export interface AppliedRunFlags {
  overrides: Record<string, unknown>;
  model: string | undefined;
  /** Said on stderr at the run's start (after `evalog: `), e.g. that the protocol read is not the published one. */
  notices?: string[];
}

/** Endpoint variables of a suite, tried before EVALOG_BASE_URL / EVALOG_MODEL / EVALOG_API_KEY. */
export interface EndpointEnv {
  baseUrl: string;
  model: string;
  apiKey: string;
}

/**
 * How recorded runs of a suite whose inputs are outside its log (a dataset the log holds only the
 * hash of) are bound to them again by resume, retry, replay and worker: the flags that name the
 * inputs, and the binding. Suites without one run from their log alone.
 */
export interface RunBinding {
  /** The flags (added to resume, retry, replay and worker). */
  options: Readonly<Record<string, RunFlagOption>>;
  /** The help line of resume, retry and replay (e.g. which runs need which flags). */
  help: string;
  /** The help lines of worker. */
  workerHelp: string;
  /**
   * A lookup of the suites bound to the inputs the flags name, by recorded suite name: undefined for
   * a name it does not bind. Called once per command; it reads the inputs only when a name it binds
   * is asked for, and refuses missing or changed inputs then (an InputError naming the flag).
   */
  bind(values: Readonly<Record<string, unknown>>, io: CliIO): (suite: string) => DefinedSuite | undefined;
}

/**
 * A command of the suite's own (`evalog <name> …`), listed by `evalog --help` beside the generic
 * ones. Its module is loaded only when it runs; it is given the CLI's parts it may use.
 */
export interface SuiteCommand {
  name: string;
  summary: string;
  load(kit: CliKit): Promise<Command>;
}

/** What the CLI knows of a suite besides the suite itself; every member optional. */
export interface SuiteCli {
  /** The suite's own `evalog run` flags; absent = none. */
  runFlags?: RunFlags;
  /** Suite-specific endpoint variables. */
  endpointEnv?: EndpointEnv;
  /**
   * Set when the suite fixes sampling and the call policy itself (why, in a few words): the flags
   * that set them (`--temperature`, `--timeout`, …) are refused by name rather than ignored.
   */
  fixedSampling?: string;
  /** How its recorded runs are bound back to their inputs; absent = from their log alone. */
  binding?: RunBinding;
  /** Its own commands. */
  commands?: readonly SuiteCommand[];
}
